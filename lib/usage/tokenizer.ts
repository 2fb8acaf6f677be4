/**
 * The gateway's tokenizer: OpenAI's o200k_base BPE (gpt-tokenizer, pure JavaScript, about
 * 24 MB/s here). Loading its tables costs ~150 ms and ~60 MB, so it is loaded on first need
 * (a marketplace job, or a reply without usage) rather than at start; a centralized-only
 * gateway whose upstreams report usage never loads it.
 */
type O200k = typeof import("gpt-tokenizer/encoding/o200k_base");

let loading: Promise<O200k> | undefined;
let loaded: O200k | undefined;

function loadTokenizer(): Promise<O200k> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/** The tokenizer if it is loaded already (synchronous checks on the relay path); starts loading it otherwise. */
export function loadedTokenizer(): O200k | undefined {
  if (!loaded) loadTokenizer().catch(() => undefined);
  return loaded;
}

/** o200k tokens in `text`. */
export async function countTokens(text: string): Promise<number> {
  if (text === "") return 0;
  return (await loadTokenizer()).countTokens(text);
}
