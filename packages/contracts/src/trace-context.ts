import { z } from "zod";

/** A W3C `traceparent` (version 00): trace id, parent span id, flags, in lowercase hex. */
export const traceparentSchema = z.string().regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
