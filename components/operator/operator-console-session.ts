import type { ApiServices } from "@/lib/api/api-services";

/** The operator a console page renders for (read by `app/dashboard/admin/read-operator-session.ts`). */
export interface OperatorConsoleSession {
  app: ApiServices;
  operator: string;
}
