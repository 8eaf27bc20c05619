/**
 * A TCP forwarder on 127.0.0.1 in front of several backends: what kube-proxy does for a Service
 * (the local cluster has none). Each new connection goes to the next backend in turn; one that
 * refuses is skipped, and a connection no backend takes is closed. Bytes pass through untouched
 * (TLS ends at the backend), and a close on either side closes the other.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";

export class TcpForwarder {
  /** Connections each backend port took, and connections that no backend took. */
  readonly taken = new Map<number, number>();
  dropped = 0;
  #next = 0;
  readonly #sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    private readonly backends: readonly number[],
  ) {}

  static async start(backends: readonly number[]): Promise<TcpForwarder> {
    const server = net.createServer({ pauseOnConnect: true });
    const forwarder = new TcpForwarder(server, backends);
    server.on("connection", (client) => {
      forwarder.#accept(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return forwarder;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.on("error", () => undefined);
  }

  #accept(client: net.Socket): void {
    this.#track(client);
    const start = this.#next++;
    const attempt = (tried: number): void => {
      if (client.destroyed) return;
      if (tried === this.backends.length) {
        this.dropped++;
        client.destroy();
        return;
      }
      const port = this.backends[(start + tried) % this.backends.length] ?? 0;
      const upstream = net.connect(port, "127.0.0.1");
      upstream.once("error", () => {
        upstream.destroy();
        attempt(tried + 1);
      });
      upstream.once("connect", () => {
        upstream.removeAllListeners("error");
        this.#track(upstream);
        this.taken.set(port, (this.taken.get(port) ?? 0) + 1);
        client.pipe(upstream);
        upstream.pipe(client);
        upstream.on("close", () => client.destroy());
        client.on("close", () => upstream.destroy());
        client.resume();
      });
    };
    attempt(0);
  }
}

/** A port free on 127.0.0.1 right now (for a server the test starts later at a known address). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
