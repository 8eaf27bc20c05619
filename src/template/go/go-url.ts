/**
 * Go's net/url as Sprig's urlParse/urlJoin use it: Parse (scheme, opaque, userinfo, host with
 * port checks, path and fragment unescaping, RawQuery kept as is) and URL.String (escaping per
 * component). Error texts are Go's (`parse "x": …`).
 */
type Mode = "path" | "pathSegment" | "host" | "zone" | "userPassword" | "queryComponent" | "fragment";

export interface GoUrl {
  scheme: string; opaque: string; user?: { username: string; password?: string }; host: string;
  path: string; rawPath: string; omitHost: boolean; forceQuery: boolean; rawQuery: string; fragment: string; rawFragment: string;
}

const isHex = (c: string): boolean => /^[0-9a-fA-F]$/.test(c);

function shouldEscape(c: number, mode: Mode): boolean {
  const ch = String.fromCharCode(c);
  if (/^[A-Za-z0-9]$/.test(ch)) return false;
  if ((mode === "host" || mode === "zone") && "!$&'()*+,;=:[]<>\"".includes(ch)) return false;
  if ("-_.~".includes(ch)) return false;
  if ("$&+,/:;=?@".includes(ch)) {
    switch (mode) {
      case "path": return ch === "?";
      case "pathSegment": return "/;,?".includes(ch);
      case "userPassword": return "@/?:".includes(ch);
      case "queryComponent": return true;
      case "fragment": return false;
      default: break;
    }
  }
  if (mode === "fragment" && "!()*".includes(ch)) return false;
  return true;
}

export function goEscape(s: string, mode: Mode): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    if (b === 0x20 && mode === "queryComponent") out += "+";
    else if (shouldEscape(b, mode)) out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    else out += String.fromCharCode(b);
  }
  return Buffer.from(out, "latin1").toString("utf8");
}

class UrlError extends Error {}

function unescape(s: string, mode: Mode): string {
  const bytes: number[] = [];
  const raw = Buffer.from(s, "utf8");
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i] ?? 0;
    if (b === 0x25) {
      const h = String.fromCharCode(raw[i + 1] ?? 0, raw[i + 2] ?? 0);
      if (i + 2 >= raw.length || !isHex(h[0] ?? "") || !isHex(h[1] ?? "")) {
        const bad = raw.subarray(i, Math.min(raw.length, i + 3)).toString("latin1");
        throw new UrlError(`invalid URL escape ${JSON.stringify(bad)}`);
      }
      bytes.push(parseInt(h, 16));
      i += 2;
    } else if (b === 0x2b) bytes.push(mode === "queryComponent" ? 0x20 : 0x2b);
    else {
      if ((mode === "host" || mode === "zone") && b < 0x80 && shouldEscape(b, mode)) throw new UrlError(`invalid character ${JSON.stringify(String.fromCharCode(b))} in host name`);
      bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

function validOptionalPort(port: string): boolean {
  return port === "" || (port.startsWith(":") && /^\d*$/.test(port.slice(1)));
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) return unescape(host.slice(0, zone), "host") + unescape(host.slice(zone, i), "zone") + unescape(host.slice(i), "host");
  } else {
    const i = host.lastIndexOf(":");
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  return unescape(host, "host");
}

function validEncoded(s: string, mode: Mode): boolean {
  for (const b of Buffer.from(s, "utf8")) {
    if ("!$&'()*+,;=:@[]%".includes(String.fromCharCode(b))) continue;
    if (shouldEscape(b, mode)) return false;
  }
  return true;
}

function parseNoFragment(raw: string): GoUrl {
  const u: GoUrl = { scheme: "", opaque: "", host: "", path: "", rawPath: "", omitHost: false, forceQuery: false, rawQuery: "", fragment: "", rawFragment: "" };
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError("net/url: invalid control character in URL");
  if (raw === "*") {
    u.path = "*";
    return u;
  }
  let rest = raw;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (raw.startsWith(":")) throw new UrlError("missing protocol scheme");
  if (m !== null) {
    u.scheme = (m[1] ?? "").toLowerCase();
    rest = raw.slice((m[1] ?? "").length + 1);
  }
  if (rest.endsWith("?") && rest.split("?").length === 2) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return u;
    }
    const slash = rest.indexOf("/");
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(":")) throw new UrlError("first path segment in URL cannot contain colon");
  }
  if ((u.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf("/");
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    rest = slash < 0 ? "" : afterSlashes.slice(slash);
    const at = authority.lastIndexOf("@");
    u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new UrlError("net/url: invalid userinfo");
      const colon = userinfo.indexOf(":");
      u.user = colon < 0 ? { username: unescape(userinfo, "userPassword") } : { username: unescape(userinfo.slice(0, colon), "userPassword"), password: unescape(userinfo.slice(colon + 1), "userPassword") };
    }
  } else if (u.scheme !== "" && rest.startsWith("/")) u.omitHost = true;
  u.path = unescape(rest, "path");
  u.rawPath = goEscape(u.path, "path") === rest ? "" : rest;
  return u;
}

/** url.Parse; throws Error with Go's message. */
export function parseGoUrl(raw: string): GoUrl {
  const hash = raw.indexOf("#");
  const [base, frag] = hash < 0 ? [raw, undefined] : [raw.slice(0, hash), raw.slice(hash + 1)];
  try {
    const u = parseNoFragment(base);
    if (frag !== undefined) {
      u.fragment = unescape(frag, "fragment");
      u.rawFragment = goEscape(u.fragment, "fragment") === frag ? "" : frag;
    }
    return u;
  } catch (e) {
    if (e instanceof UrlError) throw new Error(`parse ${JSON.stringify(raw)}: ${e.message}`);
    throw e;
  }
}

export function userString(user: NonNullable<GoUrl["user"]>): string {
  return goEscape(user.username, "userPassword") + (user.password === undefined ? "" : `:${goEscape(user.password, "userPassword")}`);
}

export function hostname(host: string): string {
  if (host.startsWith("[")) {
    const i = host.indexOf("]");
    return i < 0 ? host.slice(1) : host.slice(1, i);
  }
  const i = host.lastIndexOf(":");
  return i >= 0 && validOptionalPort(host.slice(i)) ? host.slice(0, i) : host;
}

/** URL.String. */
export function formatGoUrl(u: GoUrl): string {
  let out = "";
  if (u.scheme !== "") out += `${u.scheme}:`;
  if (u.opaque !== "") out += u.opaque;
  else {
    if (u.scheme !== "" || u.host !== "" || u.user !== undefined) {
      if (!(u.omitHost && u.host === "" && u.user === undefined)) {
        if (u.host !== "" || u.path !== "" || u.user !== undefined) out += "//";
        if (u.user !== undefined) out += `${userString(u.user)}@`;
        if (u.host !== "") out += goEscape(u.host, "host");
      }
    }
    const path = u.rawPath !== "" && validEncoded(u.rawPath, "path") && unescapeOr(u.rawPath) === u.path ? u.rawPath : u.path === "*" ? "*" : goEscape(u.path, "path");
    if (path !== "" && !path.startsWith("/") && u.host !== "") out += "/";
    if (out === "" && (path.split("/")[0] ?? "").includes(":")) out += "./";
    out += path;
  }
  if (u.forceQuery || u.rawQuery !== "") out += `?${u.rawQuery}`;
  if (u.fragment !== "") out += `#${u.rawFragment !== "" && validEncoded(u.rawFragment, "fragment") ? u.rawFragment : goEscape(u.fragment, "fragment")}`;
  return out;
}

function unescapeOr(s: string): string | undefined {
  try {
    return unescape(s, "path");
  } catch {
    return undefined;
  }
}
