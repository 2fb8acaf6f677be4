/**
 * The gateway's tokenizer: OpenAI's o200k_base BPE (gpt-tokenizer, pure JavaScript, about
 * 24 MB/s here). Loading its tables costs ~150 ms and ~60 MB, so it is loaded on first need
 * (a marketplace job, or a reply without usage) rather than at start, unless the process
 * journals streams' running counts (`preloadTokenizer`); a centralized-only gateway on an
 * in-memory database whose upstreams report usage never loads it.
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

/**
 * Loads the tokenizer now: a process whose streams journal running counts meters them with it
 * (one count per job), so it loads before serving instead of stalling the event loop (its
 * tables take ~150 ms to build, far more on a busy machine) under its first streams.
 */
export async function preloadTokenizer(): Promise<void> {
  await loadTokenizer();
}

/** The tokenizer if it is loaded already (synchronous checks on the relay path); starts loading it otherwise. */
export function loadedTokenizer(): O200k | undefined {
  if (!loaded) loadTokenizer().catch(() => undefined);
  return loaded;
}

/**
 * BPE's cost grows with the square of a word's length, so a reply made of one endless word
 * (`yyyy…`, megabytes of it) would hold the process for minutes. Text is counted in pieces: a run
 * of non-space characters is cut every 64 characters, and pieces end at whitespace after 4 KiB.
 * A cut can add at most one token, so long runs are counted up to one token per 64 characters
 * high; ordinary text is counted as it is.
 */
const maxRun = 64;
const pieceLength = 4096;

function* pieces(text: string): Generator<string> {
  let start = 0;
  let run = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const space = code === 32 || code === 10 || code === 9 || code === 13;
    run = space ? 0 : run + 1;
    const cut = (run === maxRun && index + 1 < text.length) || (space && index - start >= pieceLength);
    if (!cut) continue;
    yield text.slice(start, index + 1);
    start = index + 1;
    run = 0;
  }
  if (start < text.length) yield text.slice(start);
}

/** o200k tokens in `text`, counted in bounded pieces; stops early once past `limit` when one is given. */
export function countLoaded(tokenizer: O200k, text: string, limit = Number.POSITIVE_INFINITY): number {
  let total = 0;
  for (const piece of pieces(text)) {
    total += tokenizer.countTokens(piece);
    if (total > limit) return total;
  }
  return total;
}

/** o200k tokens in `text`. */
export async function countTokens(text: string): Promise<number> {
  if (text === "") return 0;
  return countLoaded(await loadTokenizer(), text);
}
