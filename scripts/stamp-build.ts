// The last step of `npm run build`: records which inputs `.next` was built from, so `npm start`
// can tell a fresh build from a stale one (lib/pages/build-stamp.ts).
import { writeBuildStamp } from "../lib/pages/build-stamp";

writeBuildStamp(process.cwd());
