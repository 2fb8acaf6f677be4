import type { UsageRecords } from "./usage-records";

/** What sending usage records reads: absent or undefined when no destination is set. */
export interface UsageRecordServices {
  usageRecords?: UsageRecords | undefined;
}
