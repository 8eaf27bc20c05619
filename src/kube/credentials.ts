/**
 * Turns a ConnectionConfig's auth into what each request needs: an Authorization header and,
 * for certificate auth, the TLS client cert/key. Token files are re-read (they rotate); exec
 * plugins are cached; invalidate() after a 401 forces a fresh credential.
 */
import { readFile, stat } from "node:fs/promises";
import type { ConnectionConfig } from "./connection-config.js";
import { KubeconfigError } from "./errors.js";
import { ExecCredentialProvider, type ExecCredentialResult } from "./exec-credential.js";

export interface RequestCredentials {
  readonly authorization?: string;
  readonly clientCert?: Buffer;
  readonly clientKey?: Buffer;
  /** Opaque: pass back to invalidate() on 401. */
  readonly from?: ExecCredentialResult;
}

/** How long a token file read is trusted before checking its mtime again. */
const TOKEN_FILE_RECHECK_MS = 5_000;

export class CredentialProvider {
  private readonly exec: ExecCredentialProvider | undefined;
  private tokenFromFile: { token: string; mtimeMs: number; checkedAt: number } | undefined;

  constructor(
    private readonly config: ConnectionConfig,
    env: Readonly<Record<string, string | undefined>>,
  ) {
    this.exec =
      config.exec === undefined
        ? undefined
        : new ExecCredentialProvider(config.exec, env, {
            server: config.server,
            ...(config.ca === undefined ? {} : { certificateAuthorityData: config.ca.toString("base64") }),
            insecureSkipTlsVerify: config.insecureSkipTlsVerify,
          });
  }

  get execRuns(): number {
    return this.exec?.runs ?? 0;
  }

  async get(): Promise<RequestCredentials> {
    const c = this.config;
    const base =
      c.clientCert !== undefined && c.clientKey !== undefined
        ? { clientCert: c.clientCert, clientKey: c.clientKey }
        : {};
    if (c.token !== undefined) return { ...base, authorization: `Bearer ${c.token}` };
    if (c.tokenFile !== undefined) return { ...base, authorization: `Bearer ${await this.readTokenFile(c.tokenFile)}` };
    if (this.exec !== undefined) {
      const cred = await this.exec.get();
      return {
        ...base,
        ...(cred.clientCert !== undefined && cred.clientKey !== undefined
          ? { clientCert: cred.clientCert, clientKey: cred.clientKey }
          : {}),
        ...(cred.token === undefined ? {} : { authorization: `Bearer ${cred.token}` }),
        from: cred,
      };
    }
    if (c.basicAuth !== undefined) {
      return {
        ...base,
        authorization: `Basic ${Buffer.from(`${c.basicAuth.username}:${c.basicAuth.password}`).toString("base64")}`,
      };
    }
    return base;
  }

  /** After a 401: drop cached credentials. Returns true when retrying could help. */
  invalidate(used: RequestCredentials): boolean {
    if (this.exec !== undefined && used.from !== undefined) {
      this.exec.invalidate(used.from);
      return true;
    }
    if (this.config.tokenFile !== undefined) {
      this.tokenFromFile = undefined;
      return true;
    }
    return false;
  }

  private async readTokenFile(file: string): Promise<string> {
    const now = Date.now();
    const cached = this.tokenFromFile;
    if (cached !== undefined && now - cached.checkedAt < TOKEN_FILE_RECHECK_MS) return cached.token;
    try {
      const { mtimeMs } = await stat(file);
      if (cached?.mtimeMs === mtimeMs) {
        cached.checkedAt = now;
        return cached.token;
      }
      const token = (await readFile(file, "utf8")).trim();
      this.tokenFromFile = { token, mtimeMs, checkedAt: now };
      return token;
    } catch (error) {
      throw new KubeconfigError(file, "tokenFile", `cannot read the token: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
