/**
 * Go's regexp dialect (RE2) on a linear-time engine. Kubernetes' CRD `pattern`, CEL `matches`,
 * `find`/`findAll` and Sprig's `regex*` functions are all RE2 in Go; a backtracking JavaScript
 * RegExp would both judge some patterns differently and let `^(a+)+$` run for minutes on a short
 * hostile string. `re2js` is a port of Go's/RE2J's engine: matching time is linear in the input.
 *
 * This module is the only importer of `re2js`: `expr`, `template` and `runtime` use GoRegexp, so
 * one place decides the dialect (see docs/design/cel.md, "Regular expressions").
 */
import { createRequire } from "node:module";
import type { RE2JS } from "re2js";

// Loaded on the first compile, through its CommonJS build: most CLI runs never match a regexp,
// and loading re2js costs ~50 ms of every start.
const load = createRequire(import.meta.url);
let engine: typeof import("re2js") | undefined;
const re2js = (): typeof RE2JS => (engine ??= load("re2js") as typeof import("re2js")).RE2JS;

/** One match: [start, end) offsets in UTF-16 units and the submatches (undefined = group unset). */
export interface GoRegexpMatch {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly groups: readonly (string | undefined)[];
  readonly named: Readonly<Record<string, string | undefined>>;
}

export class GoRegexpSyntaxError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`error parsing regexp: ${reason}`);
    this.name = "GoRegexpSyntaxError";
  }
}

export class GoRegexp {
  readonly #re: RE2JS;
  readonly #names: Readonly<Record<string, number>>;

  private constructor(
    readonly source: string,
    re: RE2JS,
  ) {
    this.#re = re;
    this.#names = re.namedGroups();
  }

  /** Compiles `pattern` as Go's regexp.Compile would; throws GoRegexpSyntaxError. */
  static compile(pattern: string): GoRegexp {
    try {
      return new GoRegexp(pattern, re2js().compile(pattern));
    } catch (e) {
      const reason = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : String(e);
      throw new GoRegexpSyntaxError(pattern, reason);
    }
  }

  /** Unanchored search, as Go's MatchString. */
  test(input: string): boolean {
    return this.#re.test(input);
  }

  /**
   * Successive non-overlapping matches with Go's rules (FindAllStringSubmatchIndex): an empty
   * match directly after the previous match is skipped. `limit < 0` means all.
   */
  findAll(input: string, limit = -1): GoRegexpMatch[] {
    const out: GoRegexpMatch[] = [];
    const matcher = this.#re.matcher(input);
    let pos = 0;
    let prevEnd = -1;
    while ((limit < 0 || out.length < limit) && pos <= input.length && matcher.find(pos)) {
      const start = matcher.start();
      const end = matcher.end();
      let accept = true;
      if (end === start) {
        if (start === prevEnd) accept = false;
        pos = end + codeUnitWidth(input, end);
      } else {
        pos = end;
      }
      prevEnd = end;
      if (!accept) continue;
      const groups: (string | undefined)[] = [];
      for (let g = 0; g <= matcher.groupCount(); g++) groups.push(matcher.group(g) ?? undefined);
      const named: Record<string, string | undefined> = {};
      for (const [name, index] of Object.entries(this.#names)) named[name] = groups[index];
      out.push({ start, end, text: groups[0] ?? "", groups, named });
    }
    return out;
  }

  /** First match, or undefined (Go's FindStringSubmatchIndex). */
  find(input: string): GoRegexpMatch | undefined {
    return this.findAll(input, 1)[0];
  }

  /** Go's ReplaceAllStringFunc over matches, with the match passed to `replace`. */
  replaceAll(input: string, replace: (match: GoRegexpMatch) => string): string {
    let out = "";
    let last = 0;
    for (const m of this.findAll(input)) {
      out += input.slice(last, m.start) + replace(m);
      last = m.end;
    }
    return out + input.slice(last);
  }

  /** Go's Regexp.Expand: $1, ${1}, $name, ${name}, $$; a name is the longest run of word characters. */
  expand(template: string, match: GoRegexpMatch): string {
    return template.replace(/\$(\$|\{(\w+)\}|(\w+))/g, (_all, tok: string, braced?: string, bare?: string) => {
      if (tok === "$") return "$";
      const name = braced ?? bare ?? "";
      if (/^\d+$/.test(name)) return match.groups[Number(name)] ?? "";
      return match.named[name] ?? "";
    });
  }
}

/** Past the end there is nothing to skip; a surrogate pair is one rune. */
function codeUnitWidth(s: string, at: number): number {
  if (at >= s.length) return 1;
  const c = s.charCodeAt(at);
  return c >= 0xd800 && c <= 0xdbff && at + 1 < s.length ? 2 : 1;
}

/** Returns Go's error message for an invalid pattern, or undefined when the pattern compiles. */
export function checkGoRegexp(pattern: string): string | undefined {
  try {
    GoRegexp.compile(pattern);
    return undefined;
  } catch (e) {
    return e instanceof GoRegexpSyntaxError ? e.message.replace(/^error parsing regexp: /, "") : String(e);
  }
}

/**
 * A small per-process cache of compiled patterns: instance values often repeat a pattern, and
 * compiling is far costlier than matching a short string. Bounded so hostile patterns cannot grow it.
 */
const CACHE_LIMIT = 256;
const cache = new Map<string, GoRegexp | GoRegexpSyntaxError>();

/** GoRegexp.compile with a bounded memo (errors are memoized too). */
export function compileGoRegexpCached(pattern: string): GoRegexp {
  let hit = cache.get(pattern);
  if (hit === undefined) {
    try {
      hit = GoRegexp.compile(pattern);
    } catch (e) {
      if (!(e instanceof GoRegexpSyntaxError)) throw e;
      hit = e;
    }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, hit);
  }
  if (hit instanceof GoRegexpSyntaxError) throw hit;
  return hit;
}
