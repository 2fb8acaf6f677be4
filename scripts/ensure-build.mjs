// Builds the Next app (docs, pages) once on a fresh clone so `npm start` just works.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync(".next/BUILD_ID") || process.env.POD_FORCE_BUILD === "1") {
  console.log("pod-gateway: first start, building the app (about a minute)...");
  const result = spawnSync("npm", ["run", "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
