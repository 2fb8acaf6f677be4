import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { log } from "../log";

/** A reply's receiver count, or undefined: an error, or the line broke before the reply came. */
type OnReply = (receivers: number | undefined) => void;

interface Pending {
  at: number;
  onReply: OnReply | undefined;
}

/** A reply slower than this breaks the line (node-redis' own commands wait the same). */
const replyTimeoutMs = 1_000;
const maxRetryMs = 5_000;
/** After Redis refused a PUBLISH (an ACL, a setting): try again this much later, not at once. */
const refusedRetryMs = 60_000;

/**
 * A connection to Redis that only sends PUBLISH, pipelined, and reads nothing but their integer
 * replies. On the path of every cross-replica job, node-redis' own publish (a command queue,
 * a write deferred to the next turn, a decoder, a promise per reply) cost 0.06 to 0.07 ms per
 * message on this machine against a plain socket write, measured as a round trip through an
 * echo process (0.33-0.39 ms against 0.21-0.24). Everything else stays on node-redis: this is
 * an accelerator, not the bus's only path. It is used once connected (and authenticated when
 * the URL has credentials); an error reply, a reply later than a second, or a closed socket
 * breaks it: what was waiting counts as not delivered, and the bus is back on node-redis until
 * a new connection is up.
 */
export class PublishLine {
  readonly #url: URL;
  #socket: Socket | undefined;
  #ready = false;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #failures = 0;
  /** Redis answered an error (not a lost connection): the next attempt waits `refusedRetryMs`. */
  #refused = false;
  readonly #pending: Pending[] = [];
  #head = 0;
  #partial = "";
  readonly #timer: NodeJS.Timeout;

  readonly #name: string;
  /**
   * Times the line came up, and times Redis answered it with an error: what shows that a refused
   * handshake has been answered (and the line never came up) without waiting an arbitrary time.
   */
  readonly #outcomes = { up: 0, refused: 0 };

  /** `name`: the connection's name in Redis' CLIENT LIST. */
  constructor(url: string, name = "pod-publish-line") {
    this.#url = new URL(url);
    // CLIENT SETNAME refuses spaces and newlines (and a refused command takes the line down).
    this.#name = name.replace(/[^\w.:-]/g, "_");
    this.#timer = setInterval(() => this.#checkTimeout(), replyTimeoutMs / 4);
    this.#timer.unref();
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** How often the line came up and was refused so far (a copy). */
  get outcomes(): Readonly<{ up: number; refused: number }> {
    return { ...this.#outcomes };
  }

  start(): void {
    if (this.#closed || this.#socket) return;
    const url = this.#url;
    const port = Number(url.port || 6379);
    const host = url.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
    const tls = url.protocol === "rediss:";
    const socket = tls ? connectTls({ host, port, servername: host }) : connectTcp({ host, port });
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.setEncoding("latin1");
    socket.on(tls ? "secureConnect" : "connect", () => {
      const password = decodeURIComponent(url.password);
      const username = decodeURIComponent(url.username);
      if (password) this.#write(username ? ["AUTH", username, password] : ["AUTH", password], undefined);
      this.#write(["CLIENT", "SETNAME", this.#name], undefined);
      // Up only when Redis answers a PING on it (an AUTH refused, or none where one is needed, fails it).
      this.#write(["PING"], (reply) => {
        if (reply !== undefined) this.#up();
      });
    });
    socket.on("data", (text: string) => this.#read(text));
    socket.on("error", () => this.#drop());
    socket.on("close", () => this.#drop());
  }

  /**
   * Sends a PUBLISH; false when the line is not up (publish through node-redis then). A socket
   * that needs draining is still written to: sending the next message another way could pass
   * the ones queued here, and each job's flow-control window bounds what queues.
   */
  publish(channel: string, message: string, onReply?: OnReply): boolean {
    if (!this.#ready || !this.#socket) return false;
    this.#write(["PUBLISH", channel, message], onReply);
    return true;
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    if (this.#retry) clearTimeout(this.#retry);
    this.#drop();
  }

  #up(): void {
    if (!this.#socket) return;
    this.#ready = true;
    this.#outcomes.up += 1;
  }

  #write(args: string[], onReply: OnReply | undefined): void {
    let text = `*${args.length}\r\n`;
    for (const arg of args) text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
    this.#pending.push({ at: Date.now(), onReply });
    this.#socket?.write(text);
  }

  /** Replies are one line each (`:n`, `+OK` or `-error`), in the order the commands went. */
  #read(text: string): void {
    let data = this.#partial + text;
    for (;;) {
      const end = data.indexOf("\r\n");
      if (end < 0) break;
      const line = data.slice(0, end);
      data = data.slice(end + 2);
      const pending = this.#pending[this.#head];
      if (!pending) {
        this.#drop();
        return;
      }
      this.#head += 1;
      const kind = line.charCodeAt(0);
      if (kind === 0x2d /* - */) {
        pending.onReply?.(undefined);
        if (!this.#refused)
          log.warn("marketplace publish line refused; publishing through node-redis", {
            reply: line.slice(0, 200),
          });
        this.#refused = true;
        this.#outcomes.refused += 1;
        this.#drop();
        return;
      }
      if (kind === 0x3a /* : */) {
        this.#failures = 0;
        this.#refused = false;
        pending.onReply?.(Number(line.slice(1)));
      } else pending.onReply?.(0);
    }
    this.#partial = data;
    if (this.#head > 1024 && this.#head * 2 > this.#pending.length) {
      this.#pending.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #checkTimeout(): void {
    const oldest = this.#pending[this.#head];
    if (oldest && Date.now() - oldest.at > replyTimeoutMs) this.#drop();
  }

  #drop(): void {
    this.#ready = false;
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.destroy();
    const waiting = this.#pending.splice(this.#head);
    this.#pending.length = 0;
    this.#head = 0;
    this.#partial = "";
    for (const pending of waiting) pending.onReply?.(undefined);
    if (this.#closed || this.#retry || !socket) return;
    this.#failures += 1;
    this.#retry = setTimeout(
      () => {
        this.#retry = undefined;
        this.start();
      },
      this.#refused ? refusedRetryMs : Math.min(100 * 2 ** Math.min(this.#failures, 6), maxRetryMs),
    );
    this.#retry.unref();
  }
}
