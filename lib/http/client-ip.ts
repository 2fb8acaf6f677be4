/** Header the production server sets from the socket address (any inbound copy is dropped first). */
export const clientIpHeader = "x-pod-client-ip";

export function clientIp(request: Request): string {
  return (
    request.headers.get(clientIpHeader) ??
    request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ??
    request.headers.get("x-real-ip") ??
    "unknown"
  );
}
