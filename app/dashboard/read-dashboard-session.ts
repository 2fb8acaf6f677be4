import { cookies, headers } from "next/headers";
import { cache } from "react";
import type { DashboardSession } from "@/components/dashboard/dashboard-session";
import { getAppContext } from "@/compose-app";
import { findDashboardToken } from "@/lib/dashboard/queries";
import { dashboardCookieName } from "@/lib/dashboard/session-cookie";
import type { Services } from "@/lib/services";

/** The signed-in token from the cookie set by POST /dashboard/session, or undefined (once per request). */
export const readDashboardSession = cache(async (): Promise<DashboardSession | undefined> => {
  const token = (await cookies()).get(dashboardCookieName)?.value;
  if (token === undefined) return undefined;
  const app = await getAppContext();
  const record = await findDashboardToken(app.database.db, token);
  if (!record) return undefined;
  return { app, token, record, baseUrl: await requestBaseUrl(app) };
});

async function requestBaseUrl(app: Pick<Services, "env">): Promise<string> {
  if (app.env.PUBLIC_BASE_URL) return app.env.PUBLIC_BASE_URL.replace(/\/+$/, "");
  const list = await headers();
  const forwardedHost = app.env.TRUST_PROXY ? list.get("x-forwarded-host") : null;
  const forwardedProto = app.env.TRUST_PROXY ? list.get("x-forwarded-proto") : null;
  const host = forwardedHost ?? list.get("host") ?? "127.0.0.1";
  return `${forwardedProto ?? "http"}://${host}`;
}
