/**
 * The controller's web endpoint without a token: a 401 with a sign-in page (no cluster data)
 * that says how to get in — the Authorization header, or a token pasted into the form, which
 * the endpoint reviews and then keeps in an HttpOnly, SameSite=Strict cookie for this origin
 * only. The form is accepted only from the page's own origin (no login CSRF). Pure but for
 * reading the form's body.
 */
import type { IncomingMessage } from "node:http";
import { escapeHtml, type PlainReply } from "../../inspect/index.js";
import { TOKEN_COOKIE } from "./bearer-token.js";

/** A cookie holds about 4 KiB; a longer token must come in the Authorization header. */
export const MAX_COOKIE_TOKEN = 3800;
const MAX_FORM_BYTES = 16 * 1024;

export const CHALLENGE = { "www-authenticate": 'Bearer realm="kro"' } as const;

export function signInPage(problem?: string): string {
  const said = problem === undefined ? "" : `<p class="error-message" id="sign-in-problem">${escapeHtml(problem)}</p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>kro — sign in</title><link rel="stylesheet" href="app.css"></head>
<body>
<header><h1>kro</h1><span class="muted">read-only view · sign in</span></header>
<main>
<h2>Sign in with your Kubernetes token</h2>
${said}
<p>The page shows what <em>your</em> token may read: the controller asks the API server who you are (a TokenReview) and reads everything with your token.</p>
<form method="post" action="sign-in">
<p><label for="token">Bearer token</label> (for example <code>kubectl create token NAME -n NAMESPACE</code>)</p>
<p><textarea id="token" name="token" rows="4" cols="80" required autocomplete="off" spellcheck="false"></textarea></p>
<p><button type="submit">Sign in</button></p>
</form>
<p class="muted">Scripts can send <code>Authorization: Bearer TOKEN</code> instead. Reach this page only over <code>kubectl port-forward</code> (loopback) or HTTPS: the token travels with every request.</p>
</main>
</body>
</html>
`;
}

export const unauthorized = (problem?: string): PlainReply => ({
  status: 401,
  body: signInPage(problem),
  headers: CHALLENGE,
});

/**
 * The form was posted from this server's own page: the browser says so (Sec-Fetch-Site, which a
 * page cannot set), or — from a browser without it — its Origin names the Host it was sent to.
 * (Under the page's Referrer-Policy no-referrer, browsers send `Origin: null`, so Sec-Fetch-Site comes first.)
 */
export function sameOrigin(request: IncomingMessage, secure: boolean): boolean {
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined) return site === "same-origin";
  return request.headers.origin === `${secure ? "https" : "http"}://${request.headers.host ?? ""}`;
}

export async function readFormToken(request: IncomingMessage): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  const token = new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("token")?.trim();
  return token === undefined || token === "" ? undefined : token;
}

export function tokenCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${String(maxAgeSeconds)}${secure ? "; Secure" : ""}`;
}
