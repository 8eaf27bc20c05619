/**
 * Helm golden cases: small charts rendered by Helm 3.18.6's own engine (go/template-oracle,
 * Helm mode) and recorded in test/data/template/helm-golden.json by scripts/refresh-template-golden.mjs.
 * The test renders the same chart with renderHelmTemplates and compares file by file.
 */
import { helmChartTemplates, renderHelmTemplates } from "../../../src/template/index.js";

export interface HelmCaseChart {
  readonly name?: string;
  readonly version?: string;
  readonly appVersion?: string;
  readonly type?: string;
  readonly templates: Readonly<Record<string, string>>;
  readonly files?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, unknown>>;
  readonly subcharts?: readonly HelmCaseChart[];
}

export interface HelmCase extends HelmCaseChart {
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
  readonly strict?: boolean;
}

export const DEFAULT_API_VERSIONS = ["v1", "apps/v1", "batch/v1", "networking.k8s.io/v1", "policy/v1", "autoscaling/v2", "rbac.authorization.k8s.io/v1"];

/** One template "templates/t.yaml" with these values. */
export function helmCase(text: string, values: Record<string, unknown> = {}, extra: Partial<HelmCase> = {}): HelmCase {
  return { templates: { "templates/t.yaml": text }, values, kubeVersion: "v1.30.2", apiVersions: DEFAULT_API_VERSIONS, ...extra };
}

export interface HelmExpected { readonly files?: Readonly<Record<string, string>>; readonly err?: string }

function toInput(c: HelmCaseChart): Parameters<typeof helmChartTemplates>[0] {
  return {
    metadata: { apiVersion: "v2", name: c.name ?? "chart", version: c.version ?? "0.1.0", appVersion: c.appVersion ?? "1.16.0", ...(c.type === undefined ? {} : { type: c.type }) },
    templates: Object.entries(c.templates).map(([name, text]) => ({ name, text })),
    files: c.files ?? {},
    subcharts: (c.subcharts ?? []).map(toInput),
  };
}

/** Our rendering of a case, shaped like the oracle's answer. */
export function renderHelmCase(c: HelmCase): HelmExpected {
  const templates = helmChartTemplates(toInput(c), c.values ?? {}, { name: "rel", namespace: "ns" }, { kubeVersion: c.kubeVersion, apiVersions: c.apiVersions, helmVersion: { version: "v3.18.6", goVersion: "go1.24" } });
  try {
    return { files: Object.fromEntries(renderHelmTemplates(templates, c.strict === true ? { strict: true } : {})) };
  } catch (e) {
    if (e instanceof Error && e.name === "TemplateError") return { err: e.message };
    throw e;
  }
}
