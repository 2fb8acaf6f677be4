import type { AppContext } from "../app-context";
import { authenticateHost } from "../hosts/authenticate-host";
import { bondView } from "../hosts/bond";
import { errorResponse, jsonResponse } from "../http/responses";

/** GET /v1/host/profile – the calling host's status, bond instructions and enrolment code. */
export async function handleHostProfile(app: AppContext, request: Request): Promise<Response> {
  try {
    const host = await authenticateHost(app.database.db, request);
    return jsonResponse(
      {
        provider_id: host.id,
        display_name: host.displayName,
        wallet: host.wallet,
        contact_email: host.contactEmail,
        status: host.status,
        enrolled_at: host.enrolledAt.toISOString(),
        activated_at: host.activatedAt?.toISOString() ?? null,
        bond: bondView(app.env, host.bondDepositCode),
        metadata: { enrollment_code: host.enrollmentCode },
      },
      200,
      { "cache-control": "no-store" },
    );
  } catch (error) {
    return errorResponse("openai", error);
  }
}
