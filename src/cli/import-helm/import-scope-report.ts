/**
 * What `kro import helm` says about where a chart's objects land (nothing is
 * refused silently). The example instance is rendered offline with the import's values, and each
 * object that is cluster-scoped (scope from the kinds Kubernetes serves, e.g. an APIService) or in
 * another namespace than the instance's is named, with what the author check makes of it: an
 * administrator's instance gets it, as with `helm install`; a tenant's only with the rights to
 * create it, or when the RGD exempts the resource. One line per object, on stderr, before anything
 * is applied anywhere.
 */
import type { HelmImportResult } from "../../helm/index.js";
import type { KubeObject } from "../../kube/index.js";
import { DEFAULT_KUBE_VERSION } from "../../runtime/index.js";
import { importResolver, renderDesired } from "./import-render.js";

const NODE_LABEL = "kro.run/node-id";
const AUTHOR_CHECK =
  "the controller creates these for instance authors who may create them themselves (a cluster administrator, as with helm install); other authors are refused, naming the object and the permission, unless the RGD exempts the resource (kro.run/author-check-exempt; docs/design/authorization.md)";

export async function scopeReport(imported: HelmImportResult, kubeVersion = DEFAULT_KUBE_VERSION): Promise<string[]> {
  const instance = imported.instance as KubeObject;
  const home = instance.metadata?.namespace ?? "default";
  let objects: readonly KubeObject[];
  try {
    objects = await renderDesired(imported, instance, kubeVersion);
  } catch (error) {
    return [
      `could not render the example instance to check where its objects land: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
  const resolver = await importResolver(imported, kubeVersion);
  const notes: string[] = [];
  for (const object of objects) {
    const what = `${object.kind ?? "?"} ${object.metadata?.name ?? "?"} (resource "${object.metadata?.labels?.[NODE_LABEL] ?? "?"}")`;
    const scope = resolver.resolve(object.apiVersion ?? "", object.kind ?? "");
    if (scope?.namespaced === false) notes.push(`${what} is cluster-scoped`);
    else if (object.metadata?.namespace !== undefined && object.metadata.namespace !== home)
      notes.push(`${what} is in namespace ${object.metadata.namespace}, not the instance's (${home})`);
  }
  return notes.length === 0 ? [] : [...notes, AUTHOR_CHECK];
}
