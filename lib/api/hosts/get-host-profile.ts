import type { HostProfile } from "@pod-gateway/contracts/host-api";
import { depositInstructions, solanaDepositSettings } from "../../deposits/solana/deposit-config";
import { bondHeld, bondView } from "../../hosts/bond";
import { jsonResponse } from "../../http/responses";
import { hostReputationView, hostTrustEventsView } from "../../trust/trust-view";
import type { ApiCall } from "../route-definition";

/** GET /v1/host/profile – the calling host's status, bond instructions and enrolment code. */
export async function getHostProfile({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  const chain = solanaDepositSettings(app.env);
  return jsonResponse(
    {
      provider_id: host.id,
      display_name: host.displayName,
      wallet: host.wallet,
      contact_email: host.contactEmail,
      status: host.status,
      enrolled_at: host.enrolledAt.toISOString(),
      activated_at: host.activatedAt?.toISOString() ?? null,
      bond: {
        ...bondView(app.env, host.bondDepositCode),
        held_microunits: Number(await bondHeld(app.database.db, host.id)),
        // What a wallet (the provider page, `pod-agent bond`) needs to post it: the same
        // TransferChecked + Memo a token deposit is, with the bond code as the memo.
        solana: chain.enabled
          ? { ...(await depositInstructions(chain, host.bondDepositCode)), reason: null }
          : { enabled: false, reason: chain.reason },
      },
      // How the gateway's checks see this host, and what routing does about it.
      reputation: await hostReputationView(app.database.db, host.id, host.status),
      trust_events: await hostTrustEventsView(app.database.db, host.id),
      metadata: { enrollment_code: host.enrollmentCode },
    } satisfies HostProfile,
    200,
    { "cache-control": "no-store" },
  );
}
