// GET /metrics – Prometheus counters and gauges (admin token)
import { nextRoute } from "@/lib/http/next-route";
import { handleMetrics } from "@/lib/metrics/handle-metrics";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const GET = nextRoute((app, request) => handleMetrics(app, request));
