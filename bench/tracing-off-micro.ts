// What the tracing helpers cost a request when no exporter is set: the calls one proxied request
// makes (two tracingOn checks, four inSpan wrappers: routing, hold, dispatch, settlement; one
// activeTraceContext, one injectTraceContext) against the same work called directly, alternated
// in rounds so drift hits both. Prints nanoseconds per request for each, and the difference.
//   node --import tsx bench/tracing-off-micro.ts [ROUNDS=20] [REQUESTS_PER_ROUND=200000]
import { activeTraceContext, injectTraceContext, inSpan, tracingOn } from "../lib/telemetry/tracing";

const rounds = Number(process.argv[2] ?? 20);
const perRound = Number(process.argv[3] ?? 200_000);
let sink = 0;

async function step(value: number): Promise<number> {
  return value + 1;
}

async function withHelpers(index: number): Promise<void> {
  if (tracingOn()) sink += 1;
  const headers = injectTraceContext({ "content-type": "application/json" });
  const context = activeTraceContext();
  sink += await inSpan("routing", {}, async () => step(index));
  sink += await inSpan("hold", {}, async () => step(index));
  sink += await inSpan("chat m", {}, async () => step(index + (headers["content-type"] ?? "").length));
  sink += await inSpan("settlement", {}, async () => step(index), context ? { parent: context } : {});
  if (tracingOn()) sink += 1;
}

async function direct(index: number): Promise<void> {
  const headers = { "content-type": "application/json" };
  sink += await (async () => step(index))();
  sink += await (async () => step(index))();
  sink += await (async () => step(index + (headers["content-type"] ?? "").length))();
  sink += await (async () => step(index))();
}

async function timed(work: (index: number) => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < perRound; index += 1) await work(index);
  return Number(process.hrtime.bigint() - started) / perRound;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
// A round of each first, uncounted: both paths compiled before anything is timed.
await timed(withHelpers);
await timed(direct);
const helpers: number[] = [];
const plain: number[] = [];
const differences: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  const a = await timed(withHelpers);
  const b = await timed(direct);
  helpers.push(a);
  plain.push(b);
  differences.push(a - b);
}
process.stdout.write(
  `${JSON.stringify({
    rounds,
    per_round: perRound,
    helpers_ns_per_request_median: Math.round(median(helpers)),
    direct_ns_per_request_median: Math.round(median(plain)),
    difference_ns_median: Math.round(median(differences)),
    difference_ns_range: [Math.round(Math.min(...differences)), Math.round(Math.max(...differences))],
    sink: sink > 0,
  })}\n`,
);
