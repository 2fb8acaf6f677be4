import type { StoredImageRates } from "../db/schema";
import type { ImageRate, ImageRates } from "../pricing/image-price";

const toStored = (rates: readonly ImageRate[]) =>
  rates.map((rate) => ({ size: rate.size, quality: rate.quality, microunits: rate.microunits.toString() }));

/** Image rates as the `image_rates` column and the change log keep them: microunits as strings. */
export function imageRatesRecord(rates: ImageRates): StoredImageRates {
  return { generate: toStored(rates.generate), edit: toStored(rates.edit) };
}

/** A row of digits only is a price; anything else in the column is dropped, not guessed at. */
const fromStored = (rates: StoredImageRates["generate"] | undefined): ImageRate[] =>
  (rates ?? []).flatMap((rate) =>
    /^\d{1,18}$/.test(rate.microunits)
      ? [{ size: rate.size, quality: rate.quality, microunits: BigInt(rate.microunits) }]
      : [],
  );

export function imageRatesFromStored(stored: StoredImageRates): ImageRates {
  return { generate: fromStored(stored.generate), edit: fromStored(stored.edit) };
}
