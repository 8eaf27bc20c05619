/** Sprig's urlParse and urlJoin (url.go) over go/go-url.ts. */
import {
  formatGoUrl,
  FuncError,
  goFunc,
  GoInt,
  hostname,
  kindOf,
  parseGoUrl,
  userString,
  type FuncMap,
  type GoMap,
  type GoUrl,
} from "../go/index.js";

function urlParse(v: string): GoMap {
  let u: GoUrl;
  try {
    u = parseGoUrl(v);
  } catch (e) {
    throw new FuncError(`unable to parse url: ${e instanceof Error ? e.message : String(e)}`);
  }
  return {
    scheme: u.scheme,
    host: u.host,
    hostname: hostname(u.host),
    path: u.path,
    query: u.rawQuery,
    opaque: u.opaque,
    fragment: u.fragment,
    userinfo: u.user === undefined ? "" : userString(u.user),
  };
}

function field(d: GoMap, key: string): string {
  if (!Object.hasOwn(d, key)) return "";
  const v = d[key];
  if (typeof v === "string") return v;
  if (v === null || v === undefined)
    throw new FuncError("runtime error: invalid memory address or nil pointer dereference");
  // reflect.Kind's name: a template literal is an int, a value from YAML a float64.
  const kind = v instanceof GoInt ? v.type : typeof v === "number" ? "float64" : kindOf(v);
  throw new FuncError(`unable to parse ${key} key, must be of type string, but ${kind} found`);
}

function urlJoin(d: GoMap): string {
  const u: GoUrl = {
    scheme: field(d, "scheme"),
    host: field(d, "host"),
    path: field(d, "path"),
    rawQuery: field(d, "query"),
    opaque: field(d, "opaque"),
    fragment: field(d, "fragment"),
    rawPath: "",
    rawFragment: "",
    omitHost: false,
    forceQuery: false,
  };
  const userinfo = field(d, "userinfo");
  if (userinfo !== "") {
    try {
      const parsed = parseGoUrl(`proto://${userinfo}@host`);
      if (parsed.user !== undefined) u.user = parsed.user;
    } catch (e) {
      throw new FuncError(`unable to parse userinfo in dict: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return formatGoUrl(u);
}

export const sprigUrlFuncs: FuncMap = {
  urlParse: goFunc(["string"], urlParse),
  urlJoin: goFunc(["map"], urlJoin),
};
