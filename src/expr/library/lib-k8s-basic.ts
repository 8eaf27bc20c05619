/**
 * Kubernetes apiserver CEL libraries without their own value type: lists (isSorted, sum, min, max,
 * indexOf, lastIndexOf) and URLs. The regex library (find, findAll) is in regex-calls.ts.
 */
import { compareValues, valuesEqual } from "../compare.js";
import { LibraryError, makeMap, type CelEnvironment, type LibraryContext } from "../lib-support.js";
import { INDEX_OF, LAST_INDEX_OF } from "./lib-strings.js";

class KubernetesURL {
  constructor(
    readonly url: URL,
    readonly raw: string,
  ) {}
}

function parseUrl(s: string): KubernetesURL | undefined {
  // Go's url.Parse refuses ASCII control characters anywhere; the WHATWG parser drops tabs and
  // newlines silently.
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit < 0x20 || unit === 0x7f) return undefined;
  }
  // Kubernetes accepts absolute URIs and absolute paths (url.ParseRequestURI).
  if (s.startsWith("/")) return new KubernetesURL(new URL(s, "relative:///"), s);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return undefined;
  try {
    return new KubernetesURL(new URL(s), s);
  } catch {
    return undefined;
  }
}

export function registerK8sBasicLibraries(env: CelEnvironment, lib: LibraryContext): void {
  env.registerFunction("list<A>.isSorted(): bool", (l: unknown[]) => {
    lib.charge(l.length);
    return l.every((x, i) => i === 0 || compareValues(l[i - 1], x) <= 0);
  });
  env.registerFunction("list<int>.sum(): int", (l: bigint[]) => {
    lib.charge(l.length);
    return l.reduce((a, b) => a + b, 0n);
  });
  env.registerFunction("list<double>.sum(): double", (l: number[]) => {
    lib.charge(l.length);
    return l.reduce((a, b) => a + b, 0);
  });
  const extreme = (l: unknown[], sign: number, what: string): unknown => {
    lib.charge(l.length);
    if (l.length === 0) throw new LibraryError("invalid_argument", `${what} called on empty list`);
    return l.reduce((best, x) => (compareValues(x, best) * sign > 0 ? x : best));
  };
  env.registerFunction("list<A>.min(): A", (l: unknown[]) => extreme(l, -1, "min"));
  env.registerFunction("list<A>.max(): A", (l: unknown[]) => extreme(l, 1, "max"));
  // Under the names string indexOf/lastIndexOf calls are renamed to (lib-strings.ts), which
  // both method families share.
  env.registerFunction(`list<A>.${INDEX_OF}(A): int`, (l: unknown[], v: unknown) => {
    lib.charge(l.length);
    return BigInt(l.findIndex((x) => valuesEqual(x, v)));
  });
  env.registerFunction(`list<A>.${LAST_INDEX_OF}(A): int`, (l: unknown[], v: unknown) => {
    lib.charge(l.length);
    for (let i = l.length - 1; i >= 0; i--) if (valuesEqual(l[i], v)) return BigInt(i);
    return -1n;
  });

  env.registerType("kubernetes.URL", KubernetesURL);
  env.registerFunction("isURL(string): bool", (s: string) => parseUrl(s) !== undefined);
  env.registerFunction("url(string): kubernetes.URL", (s: string) => {
    const u = parseUrl(s);
    if (u === undefined)
      throw new LibraryError("invalid_argument", `URL parse error during conversion from string: ${JSON.stringify(s)}`);
    return u;
  });
  const isRelative = (u: KubernetesURL): boolean => u.raw.startsWith("/");
  env.registerFunction("kubernetes.URL.getScheme(): string", (u: KubernetesURL) =>
    isRelative(u) ? "" : u.url.protocol.replace(/:$/, ""),
  );
  env.registerFunction("kubernetes.URL.getHost(): string", (u: KubernetesURL) => (isRelative(u) ? "" : u.url.host));
  env.registerFunction("kubernetes.URL.getHostname(): string", (u: KubernetesURL) =>
    isRelative(u) ? "" : u.url.hostname.replace(/^\[(.*)\]$/, "$1"),
  );
  env.registerFunction("kubernetes.URL.getPort(): string", (u: KubernetesURL) => (isRelative(u) ? "" : u.url.port));
  env.registerFunction("kubernetes.URL.getEscapedPath(): string", (u: KubernetesURL) => u.url.pathname);
  env.registerFunction("kubernetes.URL.getQuery(): map<string, list<string>>", (u: KubernetesURL) => {
    const entries = new Map<string, string[]>();
    for (const [k, v] of u.url.searchParams) entries.set(k, [...(entries.get(k) ?? []), v]);
    return makeMap([...entries.entries()]);
  });
}
