/**
 * Reads kubeconfig files the way kubectl does: --kubeconfig, else every file in $KUBECONFIG
 * merged (first file to set a name or current-context wins), else ~/.kube/config; then resolves
 * one context into a ConnectionConfig. Relative paths are relative to the file that holds them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { KubeconfigError } from "./errors.js";
import type { ConnectionConfig, ExecConfig } from "./connection-config.js";

export interface KubeconfigSource {
  /** --kubeconfig: one file, used alone. */
  readonly kubeconfig?: string | undefined;
  /** --context; defaults to current-context. */
  readonly context?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

type Named = { name: string; file: string; index: number; value: Record<string, unknown> };

interface Merged {
  files: string[];
  currentContext?: { name: string; file: string };
  clusters: Map<string, Named>;
  users: Map<string, Named>;
  contexts: Map<string, Named>;
}

/** The kubeconfig files to read, in kubectl's order of precedence. */
export function kubeconfigFiles(source: KubeconfigSource): string[] {
  if (source.kubeconfig !== undefined && source.kubeconfig !== "") return [source.kubeconfig];
  const fromEnv = source.env.KUBECONFIG;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv.split(path.delimiter).filter((f) => f !== "");
  const home = source.env.HOME ?? source.env.USERPROFILE;
  if (home === undefined)
    throw new KubeconfigError("~/.kube/config", "", "no --kubeconfig, $KUBECONFIG or $HOME to find a kubeconfig");
  return [path.join(home, ".kube", "config")];
}

function readKubeconfig(file: string, required: boolean): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new KubeconfigError(file, "", `cannot read: ${(error as Error).message}`, { cause: error });
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new KubeconfigError(file, "", `not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc))
    throw new KubeconfigError(file, "", "expected a mapping at the top level");
  return doc as Record<string, unknown>;
}

export function mergeKubeconfigs(files: readonly string[], explicit: boolean): Merged {
  const merged: Merged = { files: [], clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of files) {
    // kubectl ignores missing files listed in $KUBECONFIG, but not an explicit --kubeconfig.
    const doc = readKubeconfig(file, explicit);
    if (doc === undefined) continue;
    merged.files.push(file);
    const current = doc["current-context"];
    if (merged.currentContext === undefined && typeof current === "string" && current !== "")
      merged.currentContext = { name: current, file };
    for (const [list, inner] of [
      ["clusters", "cluster"],
      ["users", "user"],
      ["contexts", "context"],
    ] as const) {
      const entries = doc[list] ?? [];
      if (!Array.isArray(entries)) throw new KubeconfigError(file, list, "expected a list");
      entries.forEach((entry: unknown, index) => {
        const e = entry as Record<string, unknown> | null;
        if (e === null || typeof e !== "object" || typeof e.name !== "string")
          throw new KubeconfigError(file, `${list}[${index}].name`, "missing or not a string");
        const value = e[inner] ?? {};
        if (typeof value !== "object")
          throw new KubeconfigError(file, `${list}[${index}].${inner}`, "expected a mapping");
        const target = merged[list];
        if (!target.has(e.name))
          target.set(e.name, { name: e.name, file, index, value: value as Record<string, unknown> });
      });
    }
  }
  return merged;
}

class FieldReader {
  constructor(
    private readonly entry: Named,
    private readonly prefix: string,
  ) {}
  private field(key: string): string {
    return `${this.prefix}[${this.entry.index}].${key}`;
  }
  string(key: string): string | undefined {
    const v = this.entry.value[key];
    if (v === undefined || v === null || v === "") return undefined;
    if (typeof v !== "string") throw new KubeconfigError(this.entry.file, this.field(key), "expected a string");
    return v;
  }
  bool(key: string): boolean {
    const v = this.entry.value[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== "boolean") throw new KubeconfigError(this.entry.file, this.field(key), "expected true or false");
    return v;
  }
  /** file or inline base64 data: reads the file now so a bad path fails with its field name. */
  bytes(fileKey: string, dataKey: string): Buffer | undefined {
    const data = this.string(dataKey);
    if (data !== undefined) {
      const decoded = Buffer.from(data, "base64");
      if (decoded.length === 0) throw new KubeconfigError(this.entry.file, this.field(dataKey), "not valid base64");
      return decoded;
    }
    const file = this.string(fileKey);
    if (file === undefined) return undefined;
    const resolved = this.path(file);
    try {
      return readFileSync(resolved);
    } catch (error) {
      throw new KubeconfigError(
        this.entry.file,
        this.field(fileKey),
        `cannot read ${resolved}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  path(p: string): string {
    return path.isAbsolute(p) ? p : path.resolve(path.dirname(this.entry.file), p);
  }
  get raw(): Record<string, unknown> {
    return this.entry.value;
  }
  fail(key: string, problem: string): never {
    throw new KubeconfigError(this.entry.file, this.field(key), problem);
  }
}

function readExec(user: FieldReader): ExecConfig | undefined {
  const exec = user.raw.exec;
  if (exec === undefined || exec === null) return undefined;
  if (typeof exec !== "object") user.fail("exec", "expected a mapping");
  const e = exec as Record<string, unknown>;
  const apiVersion = e.apiVersion;
  if (apiVersion !== "client.authentication.k8s.io/v1" && apiVersion !== "client.authentication.k8s.io/v1beta1") {
    user.fail(
      "exec.apiVersion",
      `unsupported ${JSON.stringify(apiVersion)} (use client.authentication.k8s.io/v1 or v1beta1)`,
    );
  }
  if (typeof e.command !== "string" || e.command === "") user.fail("exec.command", "missing");
  const args = e.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
    user.fail("exec.args", "expected a list of strings");
  const envList = e.env ?? [];
  if (!Array.isArray(envList)) user.fail("exec.env", "expected a list of {name, value}");
  const env: Record<string, string> = {};
  envList.forEach((item: unknown, i) => {
    const { name, value } = (item ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name !== "string" || typeof value !== "string")
      user.fail(`exec.env[${i}]`, "expected {name, value} strings");
    env[name] = value;
  });
  // A bare command name is looked up on PATH; a relative path is relative to the kubeconfig.
  const command = e.command.includes("/") ? user.path(e.command) : e.command;
  return {
    apiVersion,
    command,
    args,
    env,
    provideClusterInfo: e.provideClusterInfo === true,
    ...(typeof e.installHint === "string" ? { installHint: e.installHint } : {}),
  };
}

/** Loads the kubeconfig(s) and resolves the chosen context into what a connection needs. */
export function loadKubeconfig(source: KubeconfigSource): ConnectionConfig {
  const explicit = source.kubeconfig !== undefined && source.kubeconfig !== "";
  const files = kubeconfigFiles(source);
  const merged = mergeKubeconfigs(files, explicit);
  const where = files.join(path.delimiter);
  if (merged.files.length === 0) throw new KubeconfigError(where, "", "no kubeconfig file found");
  const contextName = source.context ?? merged.currentContext?.name;
  if (contextName === undefined) throw new KubeconfigError(where, "current-context", "not set and no --context given");
  const context = merged.contexts.get(contextName);
  if (context === undefined) {
    throw new KubeconfigError(
      source.context === undefined ? (merged.currentContext?.file ?? where) : where,
      source.context === undefined ? "current-context" : "contexts",
      `context ${JSON.stringify(contextName)} not found (known: ${[...merged.contexts.keys()].join(", ") || "none"})`,
    );
  }
  const ctx = new FieldReader(context, "contexts");
  const clusterName = ctx.string("cluster") ?? ctx.fail("cluster", "missing");
  const clusterEntry =
    merged.clusters.get(clusterName) ?? ctx.fail("cluster", `cluster ${JSON.stringify(clusterName)} not found`);
  const cluster = new FieldReader(clusterEntry, "clusters");
  const userName = ctx.string("user");
  const userEntry =
    userName === undefined
      ? undefined
      : (merged.users.get(userName) ?? ctx.fail("user", `user ${JSON.stringify(userName)} not found`));
  const user = userEntry === undefined ? undefined : new FieldReader(userEntry, "users");

  const server = cluster.string("server") ?? cluster.fail("server", "missing");
  try {
    new URL(server);
  } catch {
    cluster.fail("server", `not a URL: ${server}`);
  }
  const clientCert = user?.bytes("client-certificate", "client-certificate-data");
  const clientKey = user?.bytes("client-key", "client-key-data");
  if ((clientCert === undefined) !== (clientKey === undefined)) {
    user?.fail(
      clientCert === undefined ? "client-certificate" : "client-key",
      "client certificate and key must be given together",
    );
  }
  const tokenFile = user?.string("tokenFile");
  const username = user?.string("username");
  const password = user?.string("password");
  const exec = user === undefined ? undefined : readExec(user);
  return {
    source: `kubeconfig ${merged.files.join(path.delimiter)} context ${contextName}`,
    server: server.replace(/\/+$/, ""),
    namespace: ctx.string("namespace") ?? "default",
    insecureSkipTlsVerify: cluster.bool("insecure-skip-tls-verify"),
    ...optional("ca", cluster.bytes("certificate-authority", "certificate-authority-data")),
    ...optional("tlsServerName", cluster.string("tls-server-name")),
    ...optional("clientCert", clientCert),
    ...optional("clientKey", clientKey),
    ...optional("token", user?.string("token")),
    ...optional("tokenFile", tokenFile === undefined ? undefined : user?.path(tokenFile)),
    ...optional("basicAuth", username !== undefined && password !== undefined ? { username, password } : undefined),
    ...optional("exec", exec),
  };
}

/** Spreads {key: value} only when value is defined (exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
