import type { Exchange, ExchangeInput } from "./exchange";
import { SameFormatExchange } from "./same-format-exchange";
import { TranslatedExchange } from "./translated-exchange";

/** The exchange for one request and one source: same format, or translated between two. */
export function createExchange(input: ExchangeInput): Exchange {
  return input.request.dialect === input.upstream
    ? new SameFormatExchange(input)
    : new TranslatedExchange(input);
}
