// What the scale scenarios read from the controller process besides RSS: open sockets (from
// /proc/<pid>/fd), quantiles of its request-queueing histograms (its own /metrics), and the
// gaps between renewals of its leader Lease as another client sees them.
import { readdirSync, readlinkSync } from "node:fs";
import http from "node:http";

/** Sockets the process holds open (TCP to the API server: one per watch plus the request pool). */
export function openSockets(pid) {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

export function httpText(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
}

/**
 * A quantile of a Prometheus histogram (upper bound of the bucket that reaches it), from the text
 * exposition; `match` selects label sets (e.g. 'pool="request"'). Null without observations.
 */
export function histogramQuantile(text, name, q, match = "") {
  const buckets = new Map();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`, "gm"))) {
    if (!m[1].includes(match)) continue;
    const le = /le="([^"]+)"/.exec(m[1])?.[1];
    buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
  }
  const total = buckets.get("+Inf") ?? 0;
  if (total === 0) return null;
  const sorted = [...buckets.entries()]
    .map(([le, n]) => [le === "+Inf" ? Infinity : Number(le), n])
    .sort((a, b) => a[0] - b[0]);
  for (const [le, n] of sorted) if (n >= q * total) return le;
  return Infinity;
}

export function histogramCount(text, name, match = "") {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_count(?:\\{([^}]*)\\})? (\\S+)$`, "gm")))
    if ((m[1] ?? "").includes(match)) total += Number(m[2]);
  return total;
}

/**
 * Watches a Lease's spec.renewTime through `client` every `intervalMs`; `stop()` returns the
 * largest gap between two observed renewals (ms), the renewals seen and the holders seen.
 */
export function watchLease(client, namespace, name, intervalMs = 250) {
  const ref = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace, name };
  let last;
  let lastChangeAt;
  let maxGapMs = 0;
  let renewals = 0;
  const holders = new Set();
  const timer = setInterval(async () => {
    try {
      const lease = await client.get(ref, { timeoutMs: 2000 });
      const now = Date.now();
      holders.add(lease.spec?.holderIdentity ?? "");
      if (lease.spec?.renewTime !== last) {
        if (lastChangeAt !== undefined) maxGapMs = Math.max(maxGapMs, now - lastChangeAt);
        last = lease.spec?.renewTime;
        lastChangeAt = now;
        renewals++;
      }
    } catch {
      // not created yet, or a slow answer: the gap grows and is reported
    }
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      if (lastChangeAt !== undefined) maxGapMs = Math.max(maxGapMs, Date.now() - lastChangeAt);
      return { maxGapMs, renewals, holders: [...holders] };
    },
  };
}
