/**
 * The contract of `kro import helm`: a chart, as bytes by path, in; the CRD of a new
 * kind, a template-dialect RGD and an example instance out. Kept stable: the live-release
 * migration (helm-migrate) codes against these types.
 */

/**
 * A chart's files by POSIX path relative to the chart root (`Chart.yaml`, `templates/x.yaml`,
 * `charts/redis/Chart.yaml`, `charts/redis-1.2.3.tgz`): what a directory, a .tgz and Helm's
 * release record all reduce to.
 */
export type ChartFiles = ReadonlyMap<string, Uint8Array>;

export interface HelmImportOptions {
  /** User value overrides (`--values` files, a release's config), applied in order over values.yaml. */
  readonly values?: readonly object[];
  /** Kind of the new API (default: the chart name in UpperCamelCase + "App"). */
  readonly kind?: string;
  /** API group (default: "helm.kro.run"). */
  readonly group?: string;
  /** API version (default: "v1alpha1"). */
  readonly version?: string;
  /** metadata.name of the example instance (Helm's release name; default: the chart name). */
  readonly releaseName?: string;
  /** metadata.namespace of the example instance (default: "default"). */
  readonly namespace?: string;
  /** Kubernetes version the chart is rendered against offline (`.Capabilities.KubeVersion`), e.g. "v1.33.0". */
  readonly kubeVersion?: string;
  /**
   * More `.Capabilities.APIVersions` offline (group/version or group/version/Kind), on top of
   * Helm's default set, as `helm template --api-versions` adds them (e.g. "monitoring.coreos.com/v1").
   */
  readonly apiVersions?: readonly string[];
}

/** Something the import could not carry over faithfully; never silently lost. */
export interface HelmImportWarning {
  /** Chart-relative file, e.g. `templates/tests/test-connection.yaml` (absent for chart-wide warnings). */
  readonly file?: string;
  /** 1-based line in that file, when known. */
  readonly line?: number;
  readonly message: string;
}

/** A plain Kubernetes object (JSON-like). */
export type KubeObject = Record<string, unknown>;

export interface HelmImportResult {
  /** CustomResourceDefinition of the new kind; its spec schema comes from the chart's values. */
  readonly crd: KubeObject;
  /** Template-dialect ResourceGraphDefinition attached to that kind. */
  readonly rgd: KubeObject;
  /** Example instance: metadata.name = release name, spec = the chart's values merged with `values`. */
  readonly instance: KubeObject;
  /** The chart's `crds/` files, unchanged (Helm installs them first and never upgrades them). */
  readonly crdFiles: readonly { readonly path: string; readonly text: string }[];
  readonly warnings: readonly HelmImportWarning[];
}

/** A chart that cannot be imported: the message names the file (and line when known). */
export class HelmImportError extends Error {
  override readonly name = "HelmImportError";
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file === undefined ? message : `${file}${line === undefined ? "" : `:${line}`}: ${message}`);
  }
}

export function isHelmImportError(error: unknown): error is HelmImportError {
  return error instanceof HelmImportError;
}
