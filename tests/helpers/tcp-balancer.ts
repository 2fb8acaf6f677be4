import { connect, createServer, type Server, type Socket } from "node:net";

/** What a load balancer in front of gateway replicas does for the tests: one address, any live replica. */
export interface TcpBalancer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Which target each accepted connection went to, in order. */
  routed: string[];
  close(): Promise<void>;
}

/**
 * A TCP balancer (what nginx or Caddy do for WebSockets in front of replicas, without HTTP):
 * each connection goes to the first target, in `order()`, that accepts it; a target that refuses
 * (a dead replica) is skipped. When either side closes, so does the other, so an agent connected
 * through it sees its replica die.
 */
export async function startTcpBalancer(order: () => string[]): Promise<TcpBalancer> {
  const routed: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.pause();
    client.on("error", () => undefined);
    client.on("close", () => sockets.delete(client));
    const targets = order();
    const attempt = (index: number) => {
      const target = targets[index];
      if (target === undefined) {
        client.destroy();
        return;
      }
      const { hostname, port } = new URL(target);
      const upstream = connect(Number(port), hostname);
      let connected = false;
      upstream.on("error", () => {
        if (!connected) attempt(index + 1);
        else client.destroy();
      });
      upstream.once("connect", () => {
        connected = true;
        routed.push(target);
        sockets.add(upstream);
        upstream.on("close", () => {
          sockets.delete(upstream);
          client.destroy();
        });
        client.on("close", () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
