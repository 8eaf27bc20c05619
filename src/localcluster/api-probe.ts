/**
 * The few requests the local cluster makes while starting (readiness, the simulated node).
 * Deliberately tiny: everything else talks to the cluster through src/kube.
 */
import { request } from "node:https";

export interface ProbeTarget {
  readonly server: string;
  readonly token: string;
  readonly ca: string;
}

export interface ProbeResponse {
  readonly status: number;
  readonly body: string;
}

export function apiRequest(target: ProbeTarget, method: string, path: string, body?: unknown): Promise<ProbeResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, target.server),
      {
        method,
        ca: target.ca,
        timeout: 5000,
        headers: {
          authorization: `Bearer ${target.token}`,
          accept: "application/json",
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on("error", reject);
    req.end(payload);
  });
}
