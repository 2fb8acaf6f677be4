import { cookies } from "next/headers";
import { cache } from "react";
import type { OperatorConsoleSession } from "@/components/operator/operator-console-session";
import { getAppContext } from "@/compose-app";
import { operatorCookieName, verifyOperatorSession } from "@/lib/dashboard/operator-session";

/** The signed-in operator from the console's signed cookie, or undefined (once per request). */
export const readOperatorSession = cache(async (): Promise<OperatorConsoleSession | undefined> => {
  const value = (await cookies()).get(operatorCookieName)?.value;
  const app = await getAppContext();
  const session = verifyOperatorSession(app.env.ADMIN_TOKEN, value, new Date());
  return session === undefined ? undefined : { app, operator: session.operator };
});
