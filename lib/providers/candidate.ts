import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import type { Dialect } from "../dialects/dialect";
import type { UpstreamOperation } from "../dialects/wire-format";
import type { AbortHandle } from "../light-abort";
import type { TokenPrice } from "../pricing/cost";

export type RouteKind = "centralized" | "marketplace" | "key-relay";

export interface DispatchOptions {
  /** Aborts the attempt: the caller went away, or the upstream's headers are late. */
  signal: AbortHandle;
  /** Caller headers an upstream of the same dialect should see (anthropic-version, anthropic-beta). */
  forwardHeaders: Record<string, string>;
  /** What to ask of the upstream: a generation (default) or Anthropic's token count. */
  operation?: UpstreamOperation;
  /** The body's media type when it is not JSON (a multipart image edit, with its boundary). */
  contentType?: string;
  /** A marketplace agent's own token counts (its job_done): compared with the gateway's, never billed. */
  onAgentTokens?(tokens: Record<string, number>): void;
  /** A marketplace agent's signed statement of the job (its job_done), for the caller's receipt. */
  onAgentAttestation?(attestation: HostAttestation): void;
}

/** One source that can serve a request, at the price the caller will be charged. */
export interface Candidate {
  route: RouteKind;
  /** Provider name for centralized sources, provider id (UUID) for marketplace and relays. */
  providerId: string;
  /** The wire format the source speaks; the proxy translates when it differs from the caller's. */
  dialect: Dialect;
  upstreamModelId: string;
  price: TokenPrice;
  /** When the provider enrolled: the last tie-break between equal prices. Centralized sources have none. */
  enrolledAt?: Date;
  /** The output speed a marketplace host announces: used until the gateway has measured its own. */
  announcedTokensPerSecond?: number;
  /** The weights' quantization the source declares (`fp8`, `int4`, …); undeclared when absent. */
  quantization?: string;
  /** `deny`: the source is declared not to keep or train on requests (provider.data_collection). */
  dataCollection?: "allow" | "deny";
  /** Sends the (already dialect-correct) body upstream and returns the raw upstream response. */
  dispatch(body: string, options: DispatchOptions): Promise<Response>;
}
