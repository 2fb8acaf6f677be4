import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * One full collection once start-up is over. Start-up (loading the modules, PGlite's initdb and
 * the migrations) leaves hundreds of megabytes of garbage, much of it ArrayBuffers outside the
 * JavaScript heap; an idle process allocates too little for V8 to ever collect it, so it stayed
 * resident (measured: PGlite 978 MiB idle against 437 after a benchmark's load had run the
 * collector). Called from the request thread and from PGlite's worker thread, each for its own heap.
 */
export function collectStartupGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
}
