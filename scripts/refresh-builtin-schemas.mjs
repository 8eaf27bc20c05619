#!/usr/bin/env node
// Refreshes the bundled OpenAPI schemas of Kubernetes' built-in kinds, used to type-check RGDs
// offline. For each supported version it starts a minimal local control plane (the real
// kube-apiserver of that release), reads its OpenAPI v3 documents, drops descriptions (size),
// and writes schemas/kubernetes/<minor>.json.gz: { kubernetesVersion, kinds: { "apps/v1/Deployment":
// { schema, plural, namespaced } }, schemas: { <OpenAPI component name>: schema } }. Run on purpose only:
//   npm run build && node scripts/refresh-builtin-schemas.mjs [1.33 ...]
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:https";
import path from "node:path";
import { gzipSync } from "node:zlib";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const { startLocalCluster, KUBE_RELEASES } = await import(path.join(root, "dist/src/localcluster/index.js"));
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : KUBE_RELEASES.map((r) => r.minor);

function get(cluster, apiPath) {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(apiPath, cluster.server),
      { ca: cluster.caData, headers: { authorization: `Bearer ${cluster.token}`, accept: "application/json" } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
            : reject(new Error(`${apiPath}: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function stripDescriptions(value) {
  if (Array.isArray(value)) return value.map(stripDescriptions);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const key of Object.keys(value).sort()) {
    if (key === "description") continue;
    out[key] = stripDescriptions(value[key]);
  }
  return out;
}

for (const minor of wanted) {
  const cluster = await startLocalCluster({
    mode: "minimal",
    kubeVersion: minor,
    env: process.env,
    onProgress: (m) => console.error(`${minor}: ${m}`),
  });
  try {
    const index = await get(cluster, "/openapi/v3");
    const schemas = {};
    const kinds = {};
    for (const groupVersion of Object.keys(index.paths).sort()) {
      if (!/^(api\/v1|apis\/[^/]+\/[^/]+)$/.test(groupVersion) || groupVersion.startsWith("apis/apiregistration"))
        continue;
      const doc = await get(cluster, `/openapi/v3/${groupVersion}`);
      // discovery gives what OpenAPI does not: the plural resource name and the scope
      const discovery = await get(cluster, `/${groupVersion}`);
      const resourceOf = new Map(discovery.resources.filter((r) => !r.name.includes("/")).map((r) => [r.kind, r]));
      for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
        schemas[name] = stripDescriptions(schema);
        for (const gvk of schema["x-kubernetes-group-version-kind"] ?? []) {
          const apiVersion = gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
          if (/List$|Options$|^Status$|^WatchEvent$|^DeleteOptions$/.test(gvk.kind)) continue;
          const resource = resourceOf.get(gvk.kind);
          if (resource === undefined || `${groupVersion}`.replace(/^apis?\//, "") !== apiVersion) continue;
          kinds[`${apiVersion}/${gvk.kind}`] ??= {
            schema: name,
            plural: resource.name,
            namespaced: resource.namespaced,
          };
        }
      }
    }
    const bundle = { kubernetesVersion: cluster.kubernetesVersion, kinds, schemas };
    const file = path.join(root, "schemas", "kubernetes", `${minor}.json.gz`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, gzipSync(JSON.stringify(bundle), { level: 9 }));
    const size = (await readFile(file)).length;
    console.error(
      `${minor}: ${Object.keys(kinds).length} kinds, ${Object.keys(schemas).length} schemas → ${path.relative(root, file)} (${Math.round(size / 1024)} KiB)`,
    );
  } finally {
    await cluster.stop();
  }
}
