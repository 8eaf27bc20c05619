/**
 * Exec credential plugins (client.authentication.k8s.io v1/v1beta1), as EKS, GKE and AKS use:
 * run the command, read an ExecCredential from stdout, cache it until expirationTimestamp, run
 * again when it expires or when the server answers 401.
 */
import { execFile } from "node:child_process";
import type { ExecConfig } from "./connection-config.js";
import { ExecCredentialError } from "./errors.js";

export interface ExecCredentialResult {
  readonly token?: string;
  readonly clientCert?: Buffer;
  readonly clientKey?: Buffer;
  /** ms since epoch; undefined = valid until a 401. */
  readonly expiresAt?: number;
}

export interface ExecClusterInfo {
  readonly server: string;
  readonly certificateAuthorityData?: string;
  readonly insecureSkipTlsVerify: boolean;
}

/** Refresh this long before the stated expiry, so a request never carries a just-expired token. */
const EXPIRY_MARGIN_MS = 10_000;

export class ExecCredentialProvider {
  private cached: ExecCredentialResult | undefined;
  private running: Promise<ExecCredentialResult> | undefined;
  runs = 0;

  constructor(
    private readonly config: ExecConfig,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly cluster: ExecClusterInfo,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<ExecCredentialResult> {
    const c = this.cached;
    if (c !== undefined && (c.expiresAt === undefined || c.expiresAt - EXPIRY_MARGIN_MS > this.now())) return c;
    // One run at a time: concurrent requests share it.
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    this.cached = await this.running;
    return this.cached;
  }

  /** Forget the credential (the server said 401); the next get() runs the plugin again. */
  invalidate(rejected?: ExecCredentialResult): void {
    if (rejected === undefined || rejected === this.cached) this.cached = undefined;
  }

  private async run(): Promise<ExecCredentialResult> {
    this.runs++;
    const info = {
      apiVersion: this.config.apiVersion,
      kind: "ExecCredential",
      spec: {
        interactive: false,
        ...(this.config.provideClusterInfo
          ? {
              cluster: {
                server: this.cluster.server,
                ...(this.cluster.certificateAuthorityData === undefined
                  ? {}
                  : { "certificate-authority-data": this.cluster.certificateAuthorityData }),
                "insecure-skip-tls-verify": this.cluster.insecureSkipTlsVerify,
              },
            }
          : {}),
      },
    };
    const env = { ...this.env, ...this.config.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        this.config.command,
        [...this.config.args],
        { env, timeout: 60_000, maxBuffer: 4 * 1024 * 1024 },
        (error, out, err) => {
          if (error !== null) {
            const hint =
              (error as NodeJS.ErrnoException).code === "ENOENT" && this.config.installHint !== undefined
                ? `\n${this.config.installHint}`
                : "";
            reject(
              new ExecCredentialError(
                this.config.command,
                `${error.message.trim()}${err ? `\n${err.trim()}` : ""}${hint}`,
                { cause: error },
              ),
            );
          } else {
            resolve(out);
          }
        },
      );
    });
    return this.parse(stdout);
  }

  private parse(stdout: string): ExecCredentialResult {
    let doc: { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> };
    try {
      doc = JSON.parse(stdout) as typeof doc;
    } catch (error) {
      throw new ExecCredentialError(this.config.command, "did not print JSON", { cause: error });
    }
    if (doc.kind !== "ExecCredential")
      throw new ExecCredentialError(
        this.config.command,
        `printed kind ${JSON.stringify(doc.kind)}, expected ExecCredential`,
      );
    if (doc.apiVersion !== this.config.apiVersion) {
      throw new ExecCredentialError(
        this.config.command,
        `printed apiVersion ${JSON.stringify(doc.apiVersion)}, the kubeconfig asks for ${this.config.apiVersion}`,
      );
    }
    const s = doc.status ?? {};
    const str = (k: string): string | undefined => (typeof s[k] === "string" && s[k] !== "" ? s[k] : undefined);
    const token = str("token");
    const cert = str("clientCertificateData");
    const key = str("clientKeyData");
    if (token === undefined && (cert === undefined || key === undefined)) {
      throw new ExecCredentialError(
        this.config.command,
        "status has neither token nor clientCertificateData and clientKeyData",
      );
    }
    const expiry = str("expirationTimestamp");
    const expiresAt = expiry === undefined ? undefined : Date.parse(expiry);
    if (expiresAt !== undefined && Number.isNaN(expiresAt))
      throw new ExecCredentialError(this.config.command, `bad expirationTimestamp ${expiry ?? ""}`);
    return {
      ...(token === undefined ? {} : { token }),
      ...(cert === undefined || key === undefined
        ? {}
        : { clientCert: Buffer.from(cert), clientKey: Buffer.from(key) }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }
}
