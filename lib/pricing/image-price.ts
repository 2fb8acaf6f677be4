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

/** The headline price per image (generation) or per edit, or undefined when none is sold. */
export function headlineRate(rates: readonly ImageRate[]): bigint | undefined {
  return rates[0]?.microunits;
}
