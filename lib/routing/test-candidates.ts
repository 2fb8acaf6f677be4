import type { Candidate, RouteKind } from "../providers/candidate";

/** Builds a candidate for routing unit tests; dispatch is never called by the pure selection code. */
export function testCandidate(
  providerId: string,
  route: RouteKind,
  input: number,
  output: number,
  enrolledAt?: string,
): Candidate {
  return {
    route,
    providerId,
    dialect: "openai",
    upstreamModelId: "model",
    price: {
      inputPer1m: BigInt(input),
      outputPer1m: BigInt(output),
      cacheReadPer1m: BigInt(input),
      cacheWritePer1m: BigInt(input),
    },
    ...(enrolledAt ? { enrolledAt: new Date(enrolledAt) } : {}),
    dispatch: () => Promise.reject(new Error("not dispatched in unit tests")),
  };
}
