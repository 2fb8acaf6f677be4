import { createServer } from "node:net";

/** A port free on 127.0.0.1 right now (the OS picks it; the listener closes before it is used). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("the listener has no port")),
      );
    });
  });
}
