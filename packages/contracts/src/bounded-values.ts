import { z } from "zod";

/**
 * Bounded value types for numbers and strings that arrive from outside the gateway (provider
 * agents, upstream APIs): every figure is parsed into one of these before billing, routing or
 * an HTTP response sees it, so an absurd value is refused at the door instead of overflowing a
 * database column or throwing inside a socket handler.
 */

/**
 * The largest token count any single figure may carry. Far above every context window and
 * output limit (the largest models read about 10M tokens), and small enough that several summed
 * still fit the database's 32-bit integer columns.
 */
export const maxTokenCount = 100_000_000;

/** A token count: a whole number from 0 to {@link maxTokenCount}. */
export const tokenCountSchema = z.number().int().min(0).max(maxTokenCount);

/**
 * A price in USDC microunits per 1M tokens, as a JSON integer or a digit string: at most
 * 1,000,000 USDC per 1M tokens, which no real offer approaches.
 */
export const maxPricePer1m = 1_000_000_000_000;
export const pricePer1mSchema = z.union([
  z.number().int().min(0).max(maxPricePer1m),
  z
    .string()
    .regex(/^\d{1,13}$/)
    .refine((digits) => Number(digits) <= maxPricePer1m, { message: "price above the bound" }),
]);

/**
 * The status of a response the gateway relays: a final HTTP status. 1xx statuses are not
 * responses (the Fetch API refuses to build one), so they are refused here, before it does.
 */
export const httpStatusSchema = z.number().int().min(200).max(599);

/**
 * An HTTP header value: visible ASCII, spaces and tabs only. CR or LF would split a header,
 * and characters past 0xFF make the Fetch API throw.
 */
export const headerValueSchema = z
  .string()
  .max(200)
  .regex(/^[\t\x20-\x7e]*$/, { message: "control or non-ASCII characters in a header value" });

/** An identifier chosen by the gateway (job ids are UUIDs) or a short code: printable ASCII. */
export const shortIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x21-\x7e]+$/);

/** A duration in milliseconds, up to a day. */
export const durationMsSchema = z.number().int().min(0).max(86_400_000);

/** A rate or latency figure for display: finite, non-negative, bounded. */
export const metricSchema = z.number().min(0).max(1e9);
