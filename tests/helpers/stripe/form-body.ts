/**
 * Decodes the application/x-www-form-urlencoded bodies the Stripe SDK sends, with its
 * bracket notation (`line_items[0][price_data][currency]=usd`), into nested objects.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };

export function parseStripeForm(body: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const [head = "", ...rest] = rawKey.split("[").map((part) => part.replace(/]$/, ""));
    let container: Record<string, FormValue> | FormValue[] = root;
    const path = [head, ...rest];
    path.forEach((key, index) => {
      const last = index === path.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(path[index + 1] ?? "");
      const slot = Array.isArray(container) ? Number(key) : key;
      const target = container as Record<string | number, FormValue>;
      if (last) {
        target[slot] = value;
        return;
      }
      target[slot] ??= nextIsIndex ? [] : {};
      container = target[slot] as Record<string, FormValue> | FormValue[];
    });
  }
  return root;
}
