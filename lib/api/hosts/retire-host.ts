import { GatewayError } from "../../errors/gateway-error";
import { finishRetirements, startRetirement } from "../../hosts/retire-host";
import { jsonResponse } from "../../http/responses";
import type { ApiCall } from "../route-definition";

/** POST /v1/host/retire – leave routing after in-flight jobs finish; the bond returns after the cooldown. */
export async function retireHost({ app, principal: host }: ApiCall<"host">): Promise<Response> {
  if (host.status === "suspended")
    throw new GatewayError(
      "forbidden",
      "forbidden: this host is suspended; it cannot retire (nor recover its bond) while the operator reviews it",
    );
  if (!(await startRetirement(app, host.id)) && host.status !== "retiring") {
    throw new GatewayError("conflict", `host is already ${host.status}`);
  }
  await finishRetirements(app);
  const cooldownDays = app.env.HOST_BOND_COOLDOWN_SECONDS / 86_400;
  return jsonResponse(
    {
      provider_id: host.id,
      status: "retiring",
      note: `in-flight jobs finish, then the host is retired; the bond returns to ${host.wallet} after a ${cooldownDays}-day cooldown`,
    },
    202,
    { "cache-control": "no-store" },
  );
}
