/**
 * A local TCP proxy in front of the test API server that can be switched to black-hole mode:
 * every connection, open or new, is accepted and then never answered (bytes are swallowed in
 * both directions, nothing is closed) — the network failure that hangs a client forever,
 * unlike a refused or reset connection that fails fast. It counts the connections it accepted, so
 * a test can tell that nobody reached the server behind it at all. With a latency set, every chunk
 * is held half of it on the way in and half on the way out (a closed side closes the other after
 * its chunks): each round trip takes that much longer, as with an API server far away or slow.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";

export class TcpProxy {
  private blackHoled = false;
  private accepted = 0;
  private latencyMs = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(targetUrl: string): Promise<TcpProxy> {
    const url = new URL(targetUrl);
    const target = {
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    };
    const server = net.createServer();
    const proxy = new TcpProxy(server, target);
    server.on("connection", (client) => {
      proxy.accept(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  /** The proxy's URL, with the target's scheme (TLS passes through untouched). */
  url(scheme: "https" | "http" = "https"): string {
    return `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How many connections were accepted so far (whatever happened to them). */
  get connections(): number {
    return this.accepted;
  }

  /** Adds `ms` to every round trip from now on (0: none). */
  setLatency(ms: number): void {
    this.latencyMs = Math.max(0, ms);
  }

  /** Runs `fn` after half the latency (at once without one); equal delays keep chunks in order. */
  private later(fn: () => void): void {
    if (this.latencyMs === 0) fn();
    else setTimeout(fn, this.latencyMs / 2);
  }

  /** From now on nothing gets through, either way, on any connection; nothing is closed either. */
  blackHole(): void {
    this.blackHoled = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: net.Socket): void {
    this.accepted++;
    this.sockets.add(client);
    client.on("close", () => this.sockets.delete(client));
    client.on("error", () => undefined);
    if (this.blackHoled) {
      client.on("data", () => undefined); // swallow
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(upstream);
    upstream.on("close", () => {
      this.sockets.delete(upstream);
      this.later(() => {
        if (!this.blackHoled) client.destroy();
      });
    });
    upstream.on("error", () => undefined);
    client.on("close", () => {
      this.later(() => {
        if (!this.blackHoled) upstream.destroy();
      });
    });
    client.on("data", (chunk: Buffer) => {
      this.later(() => {
        if (!this.blackHoled && !upstream.destroyed) upstream.write(chunk);
      });
    });
    upstream.on("data", (chunk: Buffer) => {
      this.later(() => {
        if (!this.blackHoled && !client.destroyed) client.write(chunk);
      });
    });
  }
}
