/**
 * The orchestrator of `kro import helm`: load the chart, compute its values as Helm does, infer
 * the spec schema, and build the CRD of the new kind, the template-dialect RGD (spec.helm +
 * manifests children) and the example instance.
 */
import type { HelmContext } from "../graph/index.js";
import { DEFAULT_KUBE_VERSION } from "../runtime/index.js";
import { pluralize } from "../schema/index.js";
import { loadChart, type LoadedChart } from "./chart-load.js";
import { applyHelmIgnore } from "./helmignore.js";
import { applyImportValues } from "./import-values.js";
import { HELM_DEFAULT_API_VERSIONS } from "./default-api-versions.js";
import { chartChildren, chartScopes, combinedCondition } from "./chart-nodes.js";
import { packHelm } from "./helm-packing.js";
import { specSchema } from "./schema-infer.js";
import {
  HelmImportError,
  type ChartFiles,
  type HelmImportOptions,
  type HelmImportResult,
  type HelmImportWarning,
  type KubeObject,
} from "./types.js";
import { chartValues, dependencyEnabled, type Values } from "./values.js";

export const DEFAULT_GROUP = "helm.kro.run";
export const DEFAULT_VERSION = "v1alpha1";

function isRecord(value: unknown): value is Values {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Several --values files: later ones win, maps merge, nulls are kept (they delete chart defaults later). */
function mergeUserValues(list: readonly object[]): Values {
  const merge = (a: Values, b: Values): Values => {
    const out: Values = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = isRecord(v) && isRecord(out[k]) ? merge(out[k], v) : v;
    return out;
  };
  return list.reduce<Values>((acc, v, i) => {
    if (!isRecord(v)) throw new HelmImportError(`values[${i}] must be a map`);
    return merge(acc, v);
  }, {});
}

function chartVersion(chart: LoadedChart): string {
  const version = chart.metadata.version;
  return typeof version === "string" || typeof version === "number" ? String(version) : "";
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}

function flattenCharts(scopes: ReturnType<typeof chartScopes>): HelmContext["charts"] {
  return scopes.map((s) => {
    const condition = combinedCondition(s.conditions);
    return {
      templatePrefix: s.chart.templatePrefix,
      valuesPath: s.valuesPath,
      metadata: s.chart.metadata,
      files: s.chart.files,
      ...(condition === undefined ? {} : { condition }),
    };
  });
}

function allTemplates(chart: LoadedChart, out: Record<string, string> = {}): Record<string, string> {
  for (const [name, text] of chart.templates) out[name] = text;
  for (const sub of chart.subcharts) allTemplates(sub, out);
  return out;
}

function allCrds(chart: LoadedChart): { path: string; text: string }[] {
  return [...chart.crds, ...chart.subcharts.flatMap(allCrds)];
}

function valuesAt(values: Values, path: readonly string[]): Values {
  let node: unknown = values;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return isRecord(node) ? node : {};
}

export function importHelmChart(files: ChartFiles, options: HelmImportOptions = {}): HelmImportResult {
  const warnings: HelmImportWarning[] = [];
  const userValues = mergeUserValues(options.values ?? []);
  const root = applyImportValues(loadChart(applyHelmIgnore(files), warnings), userValues, warnings);
  const kind = options.kind ?? `${pascal(root.name)}App`;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind))
    throw new HelmImportError(`kind ${JSON.stringify(kind)} must be UpperCamelCase (letters and digits)`);
  const group = options.group ?? DEFAULT_GROUP;
  const version = options.version ?? DEFAULT_VERSION;
  const values = chartValues(root, userValues);
  const scopes = chartScopes(root, (parent, sub, parentPath) => {
    const dep = parent.dependencies.find((d) => (d.alias ?? d.name) === sub.name);
    return dep === undefined || dependencyEnabled(dep, valuesAt(values, parentPath), values);
  });
  const helm: HelmContext = {
    templates: allTemplates(root),
    charts: flattenCharts(scopes),
    kubeVersion: options.kubeVersion ?? DEFAULT_KUBE_VERSION,
    apiVersions: [...new Set([...HELM_DEFAULT_API_VERSIONS, ...(options.apiVersions ?? [])])],
    // An instance's spec is coalesced over them as Helm does (a null removes a default, which the
    // schema's defaults alone cannot express).
    values,
  };
  const releaseName = options.releaseName ?? root.name;
  const namespace = options.namespace ?? "default";
  const apiVersion = `${group}/${version}`;
  const instance: KubeObject = { apiVersion, kind, metadata: { name: releaseName, namespace }, spec: values };
  const children = chartChildren(scopes, helm, instance, warnings);
  for (const crd of allCrds(root))
    warnings.push({
      file: crd.path,
      message: "CRD written next to the RGD: apply it first; like Helm, kro-ts never upgrades or deletes it",
    });

  const plural = pluralize(kind.toLowerCase());
  const crd: KubeObject = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: "Namespaced",
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: `${kind}: the Helm chart ${root.name} ${chartVersion(root)} as a kro-ts API; spec holds the chart's values.`,
              properties: {
                spec: { ...specSchema(root, values), default: {} },
                status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
          subresources: { status: {} },
        },
      ],
    },
  };
  const rgdWith = (helmSpec: Record<string, unknown>): KubeObject => ({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: {
      name: `${kind.toLowerCase()}-graph`,
      annotations: { "kro-ts.dev/imported-from": `helm chart ${root.name} ${chartVersion(root)}` },
    },
    spec: {
      resourceKind: { group, version, kind },
      helm: helmSpec,
      childResources: children,
    },
  });
  // Large charts carry their big templates and files gzipped, so the RGD fits what etcd stores.
  const rgd = rgdWith(packHelm(helm, Buffer.byteLength(JSON.stringify(rgdWith({ ...helm })))));
  warnings.push(...sizeWarnings({ rgd, crd }));
  return { crd, rgd, instance, crdFiles: allCrds(root), warnings };
}

/** etcd's default request limit (--max-request-bytes): a larger object cannot be stored. */
export const ETCD_DEFAULT_LIMIT_BYTES = 1.5 * 1024 * 1024;
/** From here on the import warns: the object is close to what a default etcd stores. */
export const SIZE_WARNING_BYTES = 1024 * 1024;

/** kubectl's client-side apply copies the object into an annotation, which holds at most this. */
export const CLIENT_SIDE_APPLY_LIMIT_BYTES = 256 * 1024;

/** Objects the import writes that would not fit (or barely fit) a default etcd, as JSON. */
function sizeWarnings(objects: Record<string, KubeObject>): HelmImportWarning[] {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  return Object.entries(objects).flatMap(([what, object]) => {
    const bytes = Buffer.byteLength(JSON.stringify(object));
    const name = what === "rgd" ? "ResourceGraphDefinition" : "CustomResourceDefinition";
    if (bytes < CLIENT_SIDE_APPLY_LIMIT_BYTES) return [];
    if (bytes < SIZE_WARNING_BYTES) {
      return [
        {
          message: `the ${name} is ${(bytes / 1024).toFixed(0)} KiB as JSON: apply it with kubectl apply --server-side (or kubectl create); a client-side kubectl apply copies it into the last-applied-configuration annotation, which holds at most 256 KiB`,
        },
      ];
    }
    const verdict =
      bytes > ETCD_DEFAULT_LIMIT_BYTES
        ? 'a default etcd refuses objects over 1.5 MiB ("etcdserver: request is too large")'
        : "close to a default etcd's 1.5 MiB limit per object";
    const why =
      what === "rgd"
        ? "; it carries every template and file of the chart (spec.helm), the large ones gzipped already: trim what the chart never renders (.helmignore), e.g. CRD templates applied separately"
        : "; it carries the chart's values schema";
    return [
      { message: `the ${name} is ${mib(bytes)} as JSON: ${verdict}${why}; apply it with kubectl apply --server-side` },
    ];
  });
}
