/**
 * `.Capabilities` of charts in the controller: `.KubeVersion` from the API server's /version and
 * `.APIVersions` from discovery (Helm's GetVersionSet: every group/version and every
 * group/version/Kind), rebuilt only when discovery was refreshed (a CRD change invalidates it).
 */
import type { KubeClient } from "../../kube/index.js";
import { DEFAULT_KUBE_VERSION, type HelmCapabilities } from "../../runtime/index.js";

/** Per controller: the server version (asked once) and the capabilities of the last discovery snapshot. */
export class HelmClusterCache {
  private version: Promise<string> | undefined;
  private last: { readonly refreshes: number; readonly value: HelmCapabilities } | undefined;

  constructor(private readonly client: KubeClient) {}

  async capabilities(): Promise<HelmCapabilities> {
    const kubeVersion = await (this.version ??= this.client.getPath<{ gitVersion?: unknown }>("/version").then(
      (v) => (typeof v.gitVersion === "string" && v.gitVersion !== "" ? v.gitVersion : DEFAULT_KUBE_VERSION),
      (error: unknown) => {
        this.version = undefined; // asked again next time
        throw error;
      },
    ));
    const resources = await this.client.discovery.all();
    const refreshes = this.client.discovery.refreshes;
    // The same object while discovery is unchanged: a chart render is reused by its identity.
    if (this.last?.refreshes === refreshes && this.last.value.kubeVersion === kubeVersion) return this.last.value;
    const versions = new Set<string>();
    for (const r of resources) {
      const gv = r.group === "" ? r.version : `${r.group}/${r.version}`;
      versions.add(gv);
      versions.add(`${gv}/${r.kind}`);
    }
    const apiVersions = [...versions].sort();
    // Unchanged content keeps the old object: a refresh for an unrelated reason must not re-render
    // every chart (a chart with random functions would churn).
    const same =
      this.last !== undefined &&
      this.last.value.kubeVersion === kubeVersion &&
      this.last.value.apiVersions.join("\n") === apiVersions.join("\n");
    const value: HelmCapabilities = same && this.last !== undefined ? this.last.value : { kubeVersion, apiVersions };
    this.last = { refreshes, value };
    return value;
  }
}
