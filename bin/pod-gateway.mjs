#!/usr/bin/env node
// `npx pod-gateway verify-receipt <file|->`: TypeScript run through tsx's loader, no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../scripts/pod-gateway.ts");
process.exitCode = await main(process.argv.slice(2));
