/**
 * `.helmignore`, applied as Helm's directory loader applies it (helm pkg/ignore): the root
 * chart's file only (a subchart's own .helmignore is an ordinary file, as in Helm), rules in order,
 * the first that decides wins, Go `filepath.Match` globs (no `**`), `dir/` rules for directories,
 * `/x` anchored at the chart root, patterns without a slash matched against the base name, and
 * the default rule `templates/.?*`. A directory that is ignored hides everything under it.
 *
 * Helm's negation is peculiar and kept: a `!pattern` rule reached by a path that does NOT match it
 * ignores that path (so `!*.yaml` as the last rule ignores every directory and every other file).
 * Applying the rules to files a packaged chart or a release record already filtered changes
 * nothing (the same rules keep the same paths), so they are applied to every source.
 */
import { HelmImportError, type ChartFiles } from "./types.js";

interface Rule {
  readonly negate: boolean;
  readonly mustDir: boolean;
  /** "root": anchored; "path": the whole relative path; "base": the last segment only. */
  readonly scope: "root" | "path" | "base";
  readonly pattern: RegExp;
}

const IGNORE_FILE = ".helmignore";

/** Go's filepath.Match pattern as a RegExp over one path (`*`, `?` never cross `/`); throws on a bad pattern. */
export function goGlob(pattern: string): RegExp {
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "\\") {
      i++;
      if (i >= pattern.length) throw new Error("syntax error in pattern");
      out += escapeRegExp(pattern.charAt(i));
    } else if (c === "[") {
      i++;
      let negate = false;
      if (pattern.charAt(i) === "^") {
        negate = true;
        i++;
      }
      let body = "";
      let first = true;
      while (first || pattern.charAt(i) !== "]") {
        if (i >= pattern.length) throw new Error("syntax error in pattern");
        first = false;
        const lo = classChar(pattern, i);
        i = lo.next;
        if (pattern.charAt(i) === "-" && pattern.charAt(i + 1) !== "]") {
          const hi = classChar(pattern, i + 1);
          i = hi.next;
          if (hi.char < lo.char) throw new Error("syntax error in pattern");
          body += `${escapeClass(lo.char)}-${escapeClass(hi.char)}`;
        } else body += escapeClass(lo.char);
      }
      // Go's classes may match the separator (only `*` and `?` may not).
      out += negate ? `[^${body}]` : `[${body}]`;
    } else out += escapeRegExp(c);
    i++;
  }
  return new RegExp(`^${out}$`, "s");
}

function classChar(pattern: string, at: number): { char: string; next: number } {
  const c = pattern.charAt(at);
  if (c === "" || c === "]" || c === "-") throw new Error("syntax error in pattern");
  if (c === "\\") {
    if (at + 1 >= pattern.length) throw new Error("syntax error in pattern");
    return { char: pattern.charAt(at + 1), next: at + 2 };
  }
  return { char: c, next: at + 1 };
}

const escapeRegExp = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
const escapeClass = (c: string): string => c.replace(/[\]\\^-]/g, "\\$&");

function parseRule(line: string, lineNo: number): Rule | undefined {
  let rule = line.trim();
  if (rule === "" || rule.startsWith("#")) return undefined;
  if (rule.includes("**"))
    throw new HelmImportError("double-star (**) syntax is not supported (as in Helm)", IGNORE_FILE, lineNo);
  const negate = rule.startsWith("!");
  if (negate) rule = rule.slice(1);
  const mustDir = rule.endsWith("/");
  if (mustDir) rule = rule.slice(0, -1);
  const scope = rule.startsWith("/") ? "root" : rule.includes("/") ? "path" : "base";
  try {
    // Helm checks the whole raw line (with its `!`) compiles; the stripped glob is what matches.
    goGlob(line.trim());
    return { negate, mustDir, scope, pattern: goGlob(scope === "root" ? rule.slice(1) : rule) };
  } catch (e) {
    throw new HelmImportError(`${(e as Error).message}: ${JSON.stringify(line.trim())}`, IGNORE_FILE, lineNo);
  }
}

/** The rules of a .helmignore text plus Helm's default (`templates/.?*`). */
export function parseHelmIgnore(text: string): readonly Rule[] {
  const rules = text.split(/\r?\n/).flatMap((line, i) => parseRule(line, i + 1) ?? []);
  const defaults = parseRule("templates/.?*", 0);
  return defaults === undefined ? rules : [...rules, defaults];
}

/** Helm's Rules.Ignore for one path (a directory when `isDir`). */
export function ignored(rules: readonly Rule[], path: string, isDir: boolean): boolean {
  for (const rule of rules) {
    const subject = rule.scope === "base" ? path.slice(path.lastIndexOf("/") + 1) : path;
    if (rule.negate) {
      if (rule.mustDir && !isDir) return true;
      if (!rule.pattern.test(subject)) return true;
      continue;
    }
    if (rule.mustDir && !isDir) continue;
    if (rule.pattern.test(subject)) return true;
  }
  return false;
}

/** The chart's files without those its root `.helmignore` (and Helm's default rule) exclude. */
export function applyHelmIgnore(files: ChartFiles): ChartFiles {
  const source = files.get(IGNORE_FILE);
  const rules = parseHelmIgnore(source === undefined ? "" : new TextDecoder().decode(source));
  const dirVerdicts = new Map<string, boolean>();
  const dirIgnored = (dir: string): boolean => {
    let verdict = dirVerdicts.get(dir);
    if (verdict === undefined) {
      const slash = dir.lastIndexOf("/");
      verdict = (slash > 0 && dirIgnored(dir.slice(0, slash))) || ignored(rules, dir, true);
      dirVerdicts.set(dir, verdict);
    }
    return verdict;
  };
  const out = new Map<string, Uint8Array>();
  for (const [path, bytes] of files) {
    const slash = path.lastIndexOf("/");
    if (slash > 0 && dirIgnored(path.slice(0, slash))) continue;
    if (ignored(rules, path, false)) continue;
    out.set(path, bytes);
  }
  return out;
}
