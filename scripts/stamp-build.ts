// The last step of `npm run build`: completes the standalone output (its static files), then
// records which inputs `.next` was built from, so `npm start` can tell a fresh build from a
// stale one (lib/pages/build-stamp.ts).
import { writeBuildStamp } from "../lib/pages/build-stamp";
import { completeStandalone } from "../lib/pages/standalone-next";

completeStandalone(process.cwd());
writeBuildStamp(process.cwd());
