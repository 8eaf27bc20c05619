/**
 * The Kubernetes releases the local cluster can build, pinned to exact patch versions so that a
 * build is reproducible. etcd is not pinned here: it is read from the chosen k8s.io/kubernetes
 * go.mod, so it is always the version that release was tested with.
 */
export interface KubeRelease {
  /** Minor line as users type it: "1.33". */
  readonly minor: string;
  /** Exact k8s.io/kubernetes module version. */
  readonly kubernetes: string;
  /** sigs.k8s.io/kwok module version used for simulated nodes in full mode. */
  readonly kwok: string;
}

// Each pin is the newest patch whose k8s.io staging modules (all of them, at the matching v0.x.y)
// the Go module proxy reachable from our machines actually serves: v1.31.14 and v1.32.13 list
// fine but some staging zips (k8s.io/endpointslice, k8s.io/kube-scheduler) are refused.
export const KUBE_RELEASES: readonly KubeRelease[] = Object.freeze([
  { minor: "1.31", kubernetes: "v1.31.0", kwok: "v0.7.0" },
  { minor: "1.32", kubernetes: "v1.32.2", kwok: "v0.7.0" },
  { minor: "1.33", kubernetes: "v1.33.13", kwok: "v0.7.0" },
]);

/** The newest release in the supported range. */
export const DEFAULT_KUBE_MINOR = "1.33";

export class UnsupportedKubeVersionError extends Error {
  override readonly name = "UnsupportedKubeVersionError";
}

/** Accepts "1.33", "v1.33" or the exact pinned patch ("1.33.13"). */
export function resolveKubeRelease(requested: string = DEFAULT_KUBE_MINOR): KubeRelease {
  const wanted = requested.trim().replace(/^v/, "");
  const release = KUBE_RELEASES.find((r) => r.minor === wanted || r.kubernetes === `v${wanted}`);
  if (release === undefined) {
    const supported = KUBE_RELEASES.map((r) => r.minor).join(", ");
    throw new UnsupportedKubeVersionError(
      `unsupported Kubernetes version "${requested}": supported versions are ${supported}`,
    );
  }
  return release;
}

/** "v1.33.13" → "v0.33.13", the version of every k8s.io staging module of that release. */
export function stagingVersion(release: KubeRelease): string {
  return release.kubernetes.replace(/^v1\./, "v0.");
}
