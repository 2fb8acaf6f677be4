import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { seededRandom } from "./seeded-random";

/**
 * Writes a tiny llama-architecture GGUF file with random weights: a test double that
 * node-llama-cpp (llama.cpp) loads and runs like any model, so the inference plumbing
 * (loading, tokenizing, streaming tokens, counting them) is exercised without model
 * weights, which cannot be downloaded here. It generates gibberish; nothing more is asked of it.
 *
 * Shape (toolchain-feasibility.md, Appendix C): embedding 64, 2 layers, 4 heads, feed-forward
 * 128, every tensor F32, and a byte-fallback SentencePiece vocabulary of 286 tokens
 * (<unk>, <s>, </s>, the 256 byte tokens, "▁" and a–z). About 480 KB.
 *
 * @see https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (GGUF v3 layout)
 */

const ggufValueType = {
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
} as const;

/** llama.cpp token types (llama_token_type). */
const tokenType = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

const ggmlTypeF32 = 0;
const alignment = 32;

type MetadataValue =
  | { type: "uint32"; value: number }
  | { type: "float32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: string[] }
  | { type: "float32[]"; value: number[] }
  | { type: "int32[]"; value: number[] };

/** Appends little-endian values to a growing list of buffers. */
class ByteWriter {
  readonly parts: Buffer[] = [];
  length = 0;

  push(buffer: Buffer): void {
    this.parts.push(buffer);
    this.length += buffer.length;
  }

  u32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    this.push(buffer);
  }

  i32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeInt32LE(value);
    this.push(buffer);
  }

  u64(value: number): void {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    this.push(buffer);
  }

  f32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeFloatLE(value);
    this.push(buffer);
  }

  string(value: string): void {
    const bytes = Buffer.from(value, "utf8");
    this.u64(bytes.length);
    this.push(bytes);
  }

  padTo(boundary: number): void {
    const pad = (boundary - (this.length % boundary)) % boundary;
    if (pad > 0) this.push(Buffer.alloc(pad));
  }
}

function writeMetadata(writer: ByteWriter, key: string, entry: MetadataValue): void {
  writer.string(key);
  switch (entry.type) {
    case "uint32":
      writer.u32(ggufValueType.uint32);
      writer.u32(entry.value);
      return;
    case "float32":
      writer.u32(ggufValueType.float32);
      writer.f32(entry.value);
      return;
    case "bool":
      writer.u32(ggufValueType.bool);
      writer.push(Buffer.from([entry.value ? 1 : 0]));
      return;
    case "string":
      writer.u32(ggufValueType.string);
      writer.string(entry.value);
      return;
    case "string[]":
      writer.u32(ggufValueType.array);
      writer.u32(ggufValueType.string);
      writer.u64(entry.value.length);
      for (const item of entry.value) writer.string(item);
      return;
    case "float32[]":
      writer.u32(ggufValueType.array);
      writer.u32(ggufValueType.float32);
      writer.u64(entry.value.length);
      for (const item of entry.value) writer.f32(item);
      return;
    case "int32[]":
      writer.u32(ggufValueType.array);
      writer.u32(ggufValueType.int32);
      writer.u64(entry.value.length);
      for (const item of entry.value) writer.i32(item);
      return;
  }
}

interface Tensor {
  name: string;
  /** ggml order: the first dimension is the innermost (row length). */
  dims: number[];
  data: Float32Array;
}

export interface RandomGgufOptions {
  seed?: number;
  contextLength?: number;
}

/** The vocabulary: control tokens, 256 byte-fallback tokens, then "▁" and the letters a–z. */
function vocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ["<unk>", "<s>", "</s>"];
  const types: number[] = [tokenType.unknown, tokenType.control, tokenType.control];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(tokenType.byte);
  }
  for (const piece of ["▁", ..."abcdefghijklmnopqrstuvwxyz"]) {
    tokens.push(piece);
    types.push(tokenType.normal);
  }
  return { tokens, scores: tokens.map(() => 0), types };
}

/** Builds the GGUF file's bytes. */
function randomLlamaGguf(options: RandomGgufOptions = {}): Buffer {
  const embedding = 64;
  const layers = 2;
  const heads = 4;
  const feedForward = 128;
  const vocab = vocabulary();
  const vocabSize = vocab.tokens.length;
  const random = seededRandom(options.seed ?? 1);

  const weights = (dims: number[], scale = 0.2) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * scale;
    return data;
  };
  const ones = (size: number) => new Float32Array(size).fill(1);

  // Dimension 0 of the residual stream is a constant: every embedding has C there and no layer
  // writes to it. The output rows of all but the letters and "▁" weigh it strongly negative, so
  // generation never picks the end-of-sequence, control or byte tokens: it always yields some
  // tokens, and they read as lowercase letters and spaces.
  const tokenEmbedding = weights([embedding, vocabSize], 1);
  for (let token = 0; token < vocabSize; token++) tokenEmbedding[token * embedding] = 4;
  const output = weights([embedding, vocabSize], 0.5);
  for (let token = 0; token < vocabSize; token++) {
    output[token * embedding] = vocab.types[token] === tokenType.normal ? 0 : -10;
  }
  const residualSafe = (dims: [number, number]) => {
    const data = weights(dims);
    data.fill(0, 0, dims[0]);
    return data;
  };
  const tensors: Tensor[] = [
    { name: "token_embd.weight", dims: [embedding, vocabSize], data: tokenEmbedding },
    { name: "output_norm.weight", dims: [embedding], data: ones(embedding) },
    { name: "output.weight", dims: [embedding, vocabSize], data: output },
  ];
  for (let layer = 0; layer < layers; layer++) {
    const prefix = `blk.${layer}`;
    tensors.push(
      { name: `${prefix}.attn_norm.weight`, dims: [embedding], data: ones(embedding) },
      {
        name: `${prefix}.attn_q.weight`,
        dims: [embedding, embedding],
        data: weights([embedding, embedding]),
      },
      {
        name: `${prefix}.attn_k.weight`,
        dims: [embedding, embedding],
        data: weights([embedding, embedding]),
      },
      {
        name: `${prefix}.attn_v.weight`,
        dims: [embedding, embedding],
        data: weights([embedding, embedding]),
      },
      {
        name: `${prefix}.attn_output.weight`,
        dims: [embedding, embedding],
        data: residualSafe([embedding, embedding]),
      },
      { name: `${prefix}.ffn_norm.weight`, dims: [embedding], data: ones(embedding) },
      {
        name: `${prefix}.ffn_gate.weight`,
        dims: [embedding, feedForward],
        data: weights([embedding, feedForward]),
      },
      {
        name: `${prefix}.ffn_up.weight`,
        dims: [embedding, feedForward],
        data: weights([embedding, feedForward]),
      },
      {
        name: `${prefix}.ffn_down.weight`,
        dims: [feedForward, embedding],
        data: residualSafe([feedForward, embedding]),
      },
    );
  }

  const metadata: Array<[string, MetadataValue]> = [
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: "random-test-llama" }],
    ["general.alignment", { type: "uint32", value: alignment }],
    ["llama.context_length", { type: "uint32", value: options.contextLength ?? 2048 }],
    ["llama.embedding_length", { type: "uint32", value: embedding }],
    ["llama.block_count", { type: "uint32", value: layers }],
    ["llama.feed_forward_length", { type: "uint32", value: feedForward }],
    ["llama.attention.head_count", { type: "uint32", value: heads }],
    ["llama.attention.head_count_kv", { type: "uint32", value: heads }],
    ["llama.rope.dimension_count", { type: "uint32", value: embedding / heads }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "float32", value: 1e-5 }],
    ["llama.vocab_size", { type: "uint32", value: vocabSize }],
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "string[]", value: vocab.tokens }],
    ["tokenizer.ggml.scores", { type: "float32[]", value: vocab.scores }],
    ["tokenizer.ggml.token_type", { type: "int32[]", value: vocab.types }],
    ["tokenizer.ggml.unknown_token_id", { type: "uint32", value: 0 }],
    ["tokenizer.ggml.bos_token_id", { type: "uint32", value: 1 }],
    ["tokenizer.ggml.eos_token_id", { type: "uint32", value: 2 }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: true }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
  ];

  const writer = new ByteWriter();
  writer.push(Buffer.from("GGUF", "ascii"));
  writer.u32(3);
  writer.u64(tensors.length);
  writer.u64(metadata.length);
  for (const [key, value] of metadata) writeMetadata(writer, key, value);
  let offset = 0;
  for (const tensor of tensors) {
    writer.string(tensor.name);
    writer.u32(tensor.dims.length);
    for (const dim of tensor.dims) writer.u64(dim);
    writer.u32(ggmlTypeF32);
    writer.u64(offset);
    offset += Math.ceil(tensor.data.byteLength / alignment) * alignment;
  }
  writer.padTo(alignment);
  for (const tensor of tensors) {
    writer.push(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    writer.padTo(alignment);
  }
  return Buffer.concat(writer.parts);
}

/** Writes a random-weight llama GGUF to `path` and returns the path. */
export function writeRandomLlamaGguf(path: string, options: RandomGgufOptions = {}): string {
  writeFileSync(path, randomLlamaGguf(options));
  return path;
}

// `npx tsx tests/helpers/random-gguf.ts <file.gguf>` writes one: the agent docs' offline quick start.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = process.argv[2];
  if (!target) {
    console.error("usage: tsx tests/helpers/random-gguf.ts <file.gguf>");
    process.exitCode = 2;
  } else {
    writeRandomLlamaGguf(target);
    console.log(`wrote ${target}: a random-weight llama GGUF (plumbing tests only; it generates gibberish)`);
  }
}
