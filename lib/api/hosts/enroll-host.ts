import { z } from "zod";
import { GatewayError } from "../../errors/gateway-error";
import { bondAmountMicrounits, bondView } from "../../hosts/bond";
import { enrollHost as storeHost } from "../../hosts/enroll-host";
import { clientIp } from "../../http/client-ip";
import { readValidatedJson } from "../../http/read-body";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

const enrollSchema = z.object({
  display_name: z.string().trim().min(1).max(100),
  /** The payout wallet: a Solana address (base58, 32–44 characters). */
  wallet: z
    .string()
    .trim()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a Solana address"),
  contact_email: z.email().max(254).optional(),
});

/** POST /v1/host/enroll – create a host (provider) and return its credential, provider id and bond deposit code. */
export async function enrollHost({ app, request, bodyLimit }: ApiCall<"none">): Promise<Response> {
  const limit = await app.registerLimiter.hit(`host-enroll:${clientIp(request)}`);
  if (!limit.allowed) {
    throw new GatewayError(
      "rate_limited",
      "rate limited: too many enrolments from this client, retry later",
      {
        headers: { "retry-after": String(limit.retryAfterSeconds) },
        details: { retry_after_seconds: limit.retryAfterSeconds },
      },
    );
  }
  const body = await readValidatedJson(request, enrollSchema, bodyLimit);
  const host = await storeHost(app.database.db, {
    displayName: body.display_name,
    wallet: body.wallet,
    contactEmail: body.contact_email,
  });
  return jsonResponse(
    {
      host_token: host.hostToken,
      provider_id: host.providerId,
      enrollment_code: host.enrollmentCode,
      status: "pending",
      enrolled_at: host.enrolledAt.toISOString(),
      bond: bondView(app.env, host.bondDepositCode),
      note: `the host token is shown once; the host becomes routable when its ${Number(bondAmountMicrounits / 1_000_000n)} USDC bond lands`,
    },
    201,
    { "cache-control": "no-store" },
  );
}
