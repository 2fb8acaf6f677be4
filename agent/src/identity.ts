import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** The agent's Ed25519 identity: the gateway knows the agent by this public key. */
export interface AgentIdentity {
  privateKey: KeyObject;
  /** Raw 32-byte public key, base64: what the gateway binds to the host. */
  pubkey: string;
  providerId: string | undefined;
  /** The enrolment this key belongs to, kept beside the key so a config edit cannot lose it. */
  enrollmentCode?: string | undefined;
  /** The host token from enrolment (the provider page's sign-in), kept the same way. */
  hostToken?: string | undefined;
}

const header = "-----BEGIN POD AGENT KEY-----";
const footer = "-----END POD AGENT KEY-----";

function pubkeyOf(privateKey: KeyObject): string {
  const x = createPublicKey(privateKey).export({ format: "jwk" }).x ?? "";
  return Buffer.from(x, "base64url").toString("base64");
}

/** Reads the identity file, creating a new key (mode 0600) when there is none. */
export function loadOrCreateIdentity(path: string): { identity: AgentIdentity; created: boolean } {
  if (existsSync(path)) return { identity: readIdentity(path), created: false };
  const { privateKey } = generateKeyPairSync("ed25519");
  const identity = { privateKey, pubkey: pubkeyOf(privateKey), providerId: undefined };
  writeIdentity(path, identity);
  return { identity, created: true };
}

export function readIdentity(path: string): AgentIdentity {
  const text = readFileSync(path, "utf8");
  const body = text.slice(text.indexOf(header) + header.length, text.indexOf(footer));
  const lines = body.split("\n").map((line) => line.trim());
  const field = (name: string) =>
    lines
      .find((line) => line.startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim() || undefined;
  const der = lines.filter((line) => line !== "" && !line.includes(":")).join("");
  const privateKey = createPrivateKey({ key: Buffer.from(der, "base64"), format: "der", type: "pkcs8" });
  return {
    privateKey,
    pubkey: pubkeyOf(privateKey),
    providerId: field("provider_id"),
    enrollmentCode: field("enrollment_code"),
    hostToken: field("host_token"),
  };
}

/** Writes the key file readable by its owner only: it is the host's credential on the marketplace. */
export function writeIdentity(path: string, identity: AgentIdentity): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const der = identity.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64");
  const lines = [
    header,
    ...(identity.providerId ? [`provider_id: ${identity.providerId}`] : []),
    ...(identity.enrollmentCode ? [`enrollment_code: ${identity.enrollmentCode}`] : []),
    ...(identity.hostToken ? [`host_token: ${identity.hostToken}`] : []),
    der,
    footer,
  ];
  writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The agent's signature over a job's attestation message (it goes into the caller's receipt). */
export function signText(identity: AgentIdentity, text: string): string {
  return sign(null, Buffer.from(text), identity.privateKey).toString("base64");
}

export function signNonce(identity: AgentIdentity, nonceBase64: string): string {
  return sign(null, Buffer.from(nonceBase64, "base64"), identity.privateKey).toString("base64");
}
