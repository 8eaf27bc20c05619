/**
 * The bearer token a request to the web endpoint carries: `Authorization: Bearer <token>` (curl,
 * a proxy, a browser extension), or the `kro-ui-token` cookie the sign-in form sets (a person's
 * browser). Impersonation headers (`Impersonate-User`, as `kubectl proxy` could add) are never
 * read: the endpoint acts only for the token's own user. Pure.
 */
import type { IncomingHttpHeaders } from "node:http";

export const TOKEN_COOKIE = "kro-ui-token";

/** A token is one run of visible characters (JWTs and legacy tokens alike); anything else is no token. */
const TOKEN = /^[\x21-\x7e]{1,16384}$/;

function fromCookie(header: string | undefined): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) {
      try {
        return decodeURIComponent(value.join("="));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function bearerTokenOf(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    // An Authorization header decides alone: a malformed one is no token, never a fallback to the cookie.
    const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1] !== undefined && TOKEN.test(match[1]) ? match[1] : undefined;
  }
  const token = fromCookie(headers.cookie);
  return token !== undefined && TOKEN.test(token) ? token : undefined;
}

/** The namespace of a ServiceAccount's user name (system:serviceaccount:NS:NAME), the default view of its instances. */
export function serviceAccountNamespace(username: string): string | undefined {
  const match = /^system:serviceaccount:([a-z0-9-]{1,63}):[^:]+$/.exec(username);
  return match?.[1];
}
