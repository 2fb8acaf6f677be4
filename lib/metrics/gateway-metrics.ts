import { Counter, Histogram } from "./registry";

/**
 * The gateway's counters. Module state on purpose: like any Prometheus client, one set per
 * process, shared by every AppContext in it (tests read deltas, never absolute values).
 */
export const gatewayMetrics = {
  holdsPlaced: new Counter("pod_holds_placed_total", "Holds placed for inference requests."),
  holdsRefused: new Counter(
    "pod_holds_refused_total",
    "Requests refused 402: the balance could not hold them.",
  ),
  heldMicrounits: new Counter("pod_held_microunits_total", "Microunits held for inference requests."),
  holdsReleasedDead: new Counter(
    "pod_holds_released_total",
    "Holds released without a settlement, by reason (request_failed, expired, dead_instance).",
  ),
  settlements: new Counter("pod_settlements_total", "Inference settlements, by outcome and route."),
  journalGroupWaits: new Counter(
    "pod_journal_group_waits_total",
    "Settlements that found a journal write in flight and joined the next group write.",
  ),
  journalEarlyAnswers: new Counter(
    "pod_journal_early_answers_total",
    "Answers sent before their settlement was stored: sent straight to the ledger's next batch, no journal row (a kill -9 before it commits leaves the request unbilled).",
  ),
  journalWindowFull: new Counter(
    "pod_journal_window_full_total",
    "Answers that waited for their journal row because BILLING_JOURNAL_WINDOW answers were already out with their settlements unstored.",
  ),
  chargedMicrounits: new Counter("pod_charged_microunits_total", "Microunits charged for inference."),
  lossEvents: new Counter(
    "pod_billing_loss_events_total",
    "Settlements whose cost exceeded what the account could cover (posted to the loss account).",
  ),
  lossMicrounits: new Counter(
    "pod_billing_loss_microunits_total",
    "Microunits of cost posted to the loss account because the account could not cover them.",
  ),
  upstreamExcessMicrounits: new Counter(
    "pod_upstream_excess_microunits_total",
    "Microunits a centralized upstream reported beyond what the gateway billed (booked to its upstream-excess account), by provider.",
  ),
  usageRecordsDropped: new Counter(
    "pod_usage_records_dropped_total",
    "Usage records not delivered, by destination and reason (queue_full, refused, stopped).",
  ),
  usageRecordSendFailures: new Counter(
    "pod_usage_record_send_failures_total",
    "Sends of a usage record batch that failed and will be tried again, by destination.",
  ),
  storedResponseFailures: new Counter(
    "pod_stored_response_failures_total",
    "Responses answered but not stored because the write behind the answer failed (continuing or reading them is a 404).",
  ),
  storedResponseWaits: new Counter(
    "pod_stored_response_waits_total",
    "Lookups of a stored response that waited for its write, by where it was being written (here: this process; replica: looked again) and outcome (found, not_found; crowded: more than 32 were already looking again, so not looked for).",
  ),
  storedResponseWindowFull: new Counter(
    "pod_stored_response_window_full_total",
    "Responses answers that waited for their own store because too many writes were already behind their answers.",
  ),
  upstreamErrors: new Counter("pod_upstream_errors_total", "Failed upstream attempts, by provider and kind."),
  upstreamLatency: new Histogram(
    "pod_upstream_time_to_headers_seconds",
    "Time until an upstream answered with headers, by provider and result.",
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  ),
};
