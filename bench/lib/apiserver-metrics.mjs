// Request counts as the API server saw them: apiserver_request_total from its /metrics (read
// with the admin token), summed by verb/resource/subresource, and differences between scrapes.
import { request } from "node:https";

export async function scrapeRequestTotals(cluster) {
  return parseRequestTotals(await scrapeMetricsText(cluster));
}

/** The API server's /metrics as text (Prometheus exposition). */
export function scrapeMetricsText(cluster) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cluster.server}/metrics`,
      { ca: cluster.caData, headers: { Authorization: `Bearer ${cluster.token}` } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`GET /metrics: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Sum of every series of `name` (exactly; e.g. "x_count") whose labels contain each of `match`. */
export function sumSeries(text, name, ...match) {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = line.slice(name.length, line.lastIndexOf(" "));
    if (match.every((m) => labels.includes(m))) total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/** @returns {Map<string, number>} key `VERB resource[/subresource]` → count */
export function parseRequestTotals(text) {
  const totals = new Map();
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    const key = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ""}`;
    totals.set(key, (totals.get(key) ?? 0) + value);
  }
  return totals;
}

export function diffTotals(before, after) {
  const delta = {};
  for (const [key, value] of after) {
    const d = value - (before.get(key) ?? 0);
    if (d > 0) delta[key] = d;
  }
  return delta;
}

export const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION"]);

/**
 * Keeps the requests on the given resources (the scenario's child kinds and the instance kind),
 * without status subresources of child kinds (those come from built-in controllers in full mode),
 * and subtracts the harness's own requests (`harness`: key → count).
 */
export function attributable(delta, { resources, instanceResource, harness = {} }) {
  const kept = {};
  for (const [key, count] of Object.entries(delta)) {
    const [, target] = key.split(" ");
    const [resource, subresource] = target.split("/");
    const ours = resource === instanceResource || (resources.includes(resource) && subresource === undefined);
    const n = count - (harness[key] ?? 0);
    if (ours && n > 0) kept[key] = n;
  }
  return kept;
}

export function byVerb(delta, per = 1) {
  const verbs = {};
  for (const [key, count] of Object.entries(delta)) {
    const verb = key.split(" ")[0];
    verbs[verb] = (verbs[verb] ?? 0) + count;
  }
  return Object.fromEntries(Object.entries(verbs).map(([v, n]) => [v, Math.round((n / per) * 100) / 100]));
}

export function writes(delta) {
  return Object.entries(delta)
    .filter(([key]) => WRITE_VERBS.has(key.split(" ")[0]))
    .reduce((sum, [, n]) => sum + n, 0);
}
