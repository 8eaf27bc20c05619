/**
 * Maps apiVersion+kind to a resource name and scope. Uses aggregated discovery (one request
 * each for /api and /apis) where the server offers it, legacy per-group discovery otherwise.
 * The cache refreshes when a kind is missing (rate-limited) and when told CRDs changed.
 */
import { DiscoveryError } from "./errors.js";
import type { Transport } from "./transport.js";

export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Plural resource name, e.g. "deployments". */
  readonly resource: string;
  readonly namespaced: boolean;
  readonly subresources: readonly string[];
  readonly verbs: readonly string[];
}

const AGGREGATED_ACCEPT = [
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
  "application/json",
].join(",");

/** A miss triggers at most one refresh per this period, so unknown kinds don't hammer discovery. */
const MISS_REFRESH_MS = 2_000;

interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: {
      version: string;
      resources?: {
        resource: string;
        responseKind?: { group?: string; version?: string; kind?: string };
        scope?: string;
        verbs?: string[];
        subresources?: { subresource: string }[];
      }[];
    }[];
  }[];
}

interface LegacyResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export class Discovery {
  private byGvk: Map<string, ResourceInfo> | undefined;
  private loading: Promise<Map<string, ResourceInfo>> | undefined;
  private lastRefresh = 0;
  refreshes = 0;
  invalidations = 0;

  constructor(private readonly transport: Transport) {}

  /** Forget everything (a CRD was added, changed or removed). */
  invalidate(): void {
    this.invalidations++;
    this.byGvk = undefined;
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const key = `${apiVersion}/${kind}`;
    const found = (await this.load()).get(key);
    if (found !== undefined) return found;
    if (Date.now() - this.lastRefresh > MISS_REFRESH_MS) {
      this.invalidate();
      const again = (await this.load()).get(key);
      if (again !== undefined) return again;
    }
    throw new DiscoveryError(apiVersion, kind);
  }

  async all(): Promise<ResourceInfo[]> {
    return [...(await this.load()).values()];
  }

  private load(): Promise<Map<string, ResourceInfo>> {
    if (this.byGvk !== undefined) return Promise.resolve(this.byGvk);
    this.loading ??= this.fetch()
      .then((map) => {
        this.byGvk = map;
        this.lastRefresh = Date.now();
        this.refreshes++;
        return map;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async fetch(): Promise<Map<string, ResourceInfo>> {
    const map = new Map<string, ResourceInfo>();
    for (const root of ["/api", "/apis"]) {
      const res = await this.transport.request({ method: "GET", path: root, accept: AGGREGATED_ACCEPT });
      const doc = JSON.parse(res.body) as AggregatedList & {
        versions?: string[];
        groups?: { preferredVersion?: { groupVersion: string }; versions?: { groupVersion: string }[] }[];
      };
      if (doc.kind === "APIGroupDiscoveryList") addAggregated(map, doc);
      else
        await this.addLegacy(
          map,
          root === "/api"
            ? (doc.versions ?? []).map((v) => v)
            : (doc.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)),
        );
    }
    return map;
  }

  private async addLegacy(map: Map<string, ResourceInfo>, groupVersions: string[]): Promise<void> {
    await Promise.all(
      groupVersions.map(async (gv) => {
        const path = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
        // An unavailable aggregated API (e.g. metrics) must not break discovery of the rest.
        const res = await this.transport.request({ method: "GET", path, retry: false }).catch(() => undefined);
        if (res === undefined) return;
        const list = JSON.parse(res.body) as LegacyResourceList;
        const { group, version } = splitApiVersion(gv);
        const subresources = new Map<string, string[]>();
        for (const r of list.resources ?? []) {
          const [base, sub] = r.name.split("/");
          if (base !== undefined && sub !== undefined) subresources.set(base, [...(subresources.get(base) ?? []), sub]);
        }
        for (const r of list.resources ?? []) {
          if (r.name.includes("/")) continue;
          map.set(`${gv}/${r.kind}`, {
            group,
            version,
            kind: r.kind,
            resource: r.name,
            namespaced: r.namespaced,
            subresources: subresources.get(r.name) ?? [],
            verbs: r.verbs ?? [],
          });
        }
      }),
    );
  }
}

function addAggregated(map: Map<string, ResourceInfo>, doc: AggregatedList): void {
  for (const g of doc.items ?? []) {
    const group = g.metadata?.name ?? "";
    for (const v of g.versions ?? []) {
      for (const r of v.resources ?? []) {
        const kind = r.responseKind?.kind;
        if (kind === undefined || kind === "") continue;
        const gv = group === "" ? v.version : `${group}/${v.version}`;
        map.set(`${gv}/${kind}`, {
          group,
          version: v.version,
          kind,
          resource: r.resource,
          namespaced: r.scope === "Namespaced",
          subresources: (r.subresources ?? []).map((s) => s.subresource),
          verbs: r.verbs ?? [],
        });
      }
    }
  }
}
