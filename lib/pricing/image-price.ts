/** One price of an image model: microunits per image of this size at this quality. */
export interface ImageRate {
  /** `1024x1024`, `1536x1024`, …, as OpenAI's `size` names it. */
  size: string;
  /** `standard`, `hd`, `low`, `medium`, `high`, as the model names its qualities. */
  quality: string;
  microunits: bigint;
}

/**
 * What one provider charges for a model's images. The first generation rate is the model's
 * headline (its default size and quality: what the feed's `*_price_per_image` shows); `edit`
 * is empty when the provider does not edit images with the model.
 */
export interface ImageRates {
  generate: ImageRate[];
  edit: ImageRate[];
}

/** What a request asked for; `auto` or absent means the model chooses. */
export interface ImageAsk {
  size?: string | undefined;
  quality?: string | undefined;
}

const chosen = (value: string | undefined) => (value === undefined || value === "auto" ? undefined : value);

/**
 * The rates a request may end up paying: the one its size and quality name, or every rate
 * the part it leaves to the model could pick. Empty when it names a size or quality the
 * provider does not sell (the request is refused, not guessed at).
 */
export function ratesFor(rates: readonly ImageRate[], ask: ImageAsk): ImageRate[] {
  const size = chosen(ask.size);
  const quality = chosen(ask.quality);
  return rates.filter(
    (rate) =>
      (size === undefined || rate.size === size) && (quality === undefined || rate.quality === quality),
  );
}

/** The dearest of the rates, or undefined for none: what a hold for one image covers. */
export function dearestRate(rates: readonly ImageRate[]): bigint | undefined {
  return rates.reduce<bigint | undefined>(
    (best, rate) => (best === undefined || rate.microunits > best ? rate.microunits : best),
    undefined,
  );
}

/** The headline price per image (generation) or per edit, or undefined when none is sold. */
export function headlineRate(rates: readonly ImageRate[]): bigint | undefined {
  return rates[0]?.microunits;
}
