/**
 * The HTTPS endpoint the API server calls to convert objects: POST /convert with a
 * ConversionReview. The TLS context is swapped in place when the certificate rotates, so
 * connections in flight finish and new ones get the new certificate.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../observability/index.js";
import { reviewConversion, type ApiLookup } from "./conversion-review.js";
import type { ServingCertificate } from "./serving-certificate.js";

export const CONVERT_PATH = "/convert";
/** The API server sends at most a list's worth of objects; a body beyond this is refused. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface RunningWebhookServer {
  readonly port: number;
  useCertificate(cert: ServingCertificate): void;
  close(): Promise<void>;
}

export async function startWebhookServer(options: { host: string; port: number; cert: ServingCertificate; lookup: ApiLookup; logger: Logger }): Promise<RunningWebhookServer> {
  const server: Server = createServer({ key: options.cert.keyPem, cert: options.cert.certPem }, (req, res) => {
    const reply = (status: number, body: unknown) => { res.writeHead(status, { "content-type": "application/json" }); res.end(JSON.stringify(body)); };
    if (req.url === "/healthz") { reply(200, { ok: true }); return; }
    if (req.method !== "POST" || req.url?.split("?")[0] !== CONVERT_PATH) { reply(404, { message: `POST ${CONVERT_PATH} only` }); return; }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) { reply(413, { message: "ConversionReview too large" }); req.destroy(); return; }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (res.headersSent) return;
      let body: unknown;
      try { body = JSON.parse(Buffer.concat(chunks).toString("utf8")); } catch { reply(400, { message: "body is not JSON" }); return; }
      try {
        const review = reviewConversion(body, options.lookup);
        if (review === undefined) { reply(400, { message: "body is not a ConversionReview request" }); return; }
        if (review.response.result.status === "Failure") options.logger.warn({ message: review.response.result.message }, "conversion refused");
        reply(200, review);
      } catch (e) {
        options.logger.error({ err: e instanceof Error ? e.message : String(e) }, "conversion webhook failed");
        reply(500, { message: e instanceof Error ? e.message : String(e) });
      }
    });
  });
  await new Promise<void>((resolve, reject) => { server.once("error", reject); server.listen(options.port, options.host, () => { server.off("error", reject); resolve(); }); });
  return {
    port: (server.address() as AddressInfo).port,
    useCertificate(cert) { server.setSecureContext({ key: cert.keyPem, cert: cert.certPem });},
    close: () => new Promise<void>((resolve) => { server.close(() => { resolve(); }); server.closeAllConnections(); }),
  };
}
