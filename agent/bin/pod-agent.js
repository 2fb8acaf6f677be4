#!/usr/bin/env node
// The agent is TypeScript run through tsx's loader, so there is no build step to forget.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli.ts");
process.exitCode = await main(process.argv.slice(2));
