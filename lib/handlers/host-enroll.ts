import { z } from "zod";
import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { bondAmountMicrounits, bondView } from "../hosts/bond";
import { enrollHost } from "../hosts/enroll-host";
import { clientIp } from "../http/client-ip";
import { errorResponse, jsonResponse } from "../http/responses";
import { readHostBody } from "./host-request-body";

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
export async function handleHostEnroll(app: AppContext, request: Request): Promise<Response> {
  try {
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
    const body = await readHostBody(request, enrollSchema, app.env.MAX_BODY_BYTES);
    const host = await enrollHost(app.database.db, {
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
  } catch (error) {
    return errorResponse("openai", error);
  }
}
