/**
 * Sprig's list functions (list.go) and their must* variants: the plain ones fail the same way,
 * because Sprig panics and text/template turns a panic into "error calling NAME: …".
 */
import {
  chargeElements,
  chargeWork,
  deepEqual,
  FuncError,
  goFunc,
  int,
  isEmpty,
  reflectKind,
  sliceElements,
  stringSlice,
  strval,
  toInt64,
  typedSlice,
  type FuncMap,
  type GoValue,
} from "../go/index.js";

function elements(v: GoValue, what: string): unknown[] {
  const e = sliceElements(v);
  if (e === undefined) {
    if (v === null || v === undefined)
      throw new FuncError("runtime error: invalid memory address or nil pointer dereference");
    throw new FuncError(`${what} ${reflectKind(v)}`);
  }
  return e;
}

const both = (name: string, f: FuncMap[string]): FuncMap => ({
  [name]: f,
  [`must${name.charAt(0).toUpperCase()}${name.slice(1)}`]: f,
});

function sliceList(list: GoValue, ...idx: GoValue[]): unknown[] {
  const e = sliceElements(list);
  if (e === undefined) throw new FuncError(`list should be type of slice or array but ${reflectKind(list)}`);
  const l = e.length;
  if (l === 0) return [];
  const start = idx.length > 0 ? Number(toInt64(idx[0])) : 0;
  const end = idx.length > 1 ? Number(toInt64(idx[1])) : l;
  if (start < 0 || end > l || start > end) throw new FuncError("reflect.Value.Slice: slice index out of bounds");
  return e.slice(start, end);
}

export const sprigListFuncs: FuncMap = {
  ...both(
    "append",
    goFunc(["any", "any"], (l: GoValue, v: GoValue) => [...elements(l, "Cannot push on type"), v]),
  ),
  ...both(
    "push",
    goFunc(["any", "any"], (l: GoValue, v: GoValue) => [...elements(l, "Cannot push on type"), v]),
  ),
  ...both(
    "prepend",
    goFunc(["any", "any"], (l: GoValue, v: GoValue) => [v, ...elements(l, "Cannot prepend on type")]),
  ),
  ...both(
    "first",
    goFunc(["any"], (l: GoValue) => elements(l, "Cannot find first on type")[0] ?? null),
  ),
  ...both(
    "last",
    goFunc(["any"], (l: GoValue) => elements(l, "Cannot find last on type").at(-1) ?? null),
  ),
  ...both(
    "rest",
    goFunc(["any"], (l: GoValue) => {
      const e = elements(l, "Cannot find rest on type");
      return e.length === 0 ? [] : e.slice(1);
    }),
  ),
  ...both(
    "initial",
    goFunc(["any"], (l: GoValue) => {
      const e = elements(l, "Cannot find initial on type");
      return e.length === 0 ? [] : e.slice(0, -1);
    }),
  ),
  ...both(
    "reverse",
    goFunc(["any"], (l: GoValue) => [...elements(l, "Cannot find reverse on type")].reverse()),
  ),
  ...both(
    "compact",
    goFunc(["any"], (l: GoValue) => elements(l, "Cannot compact on type").filter((e) => !isEmpty(e as GoValue))),
  ),
  ...both(
    "uniq",
    goFunc(["any"], (l: GoValue) => {
      const out: unknown[] = [];
      const all = elements(l, "Cannot find uniq on type");
      // Sprig's uniq compares each element with those kept: quadratic, and charged so.
      chargeWork(Math.floor((all.length * all.length) / 16), () => `uniq of ${all.length} elements`);
      for (const e of all) if (!out.some((o) => deepEqual(o, e))) out.push(e);
      return out;
    }),
  ),
  ...both(
    "without",
    goFunc(
      ["any"],
      (l: GoValue, ...omit: GoValue[]) =>
        elements(l, "Cannot find without on type").filter((e) => !omit.some((o) => deepEqual(o, e))),
      "any",
    ),
  ),
  ...both(
    "has",
    goFunc(["any", "any"], (needle: GoValue, hay: GoValue) => {
      if (hay === null) return false;
      return elements(hay, "Cannot find has on type").some((e) => deepEqual(e, needle));
    }),
  ),
  ...both("slice", goFunc(["any"], sliceList, "any")),
  ...both(
    "chunk",
    goFunc(["int", "any"], (size: { value: bigint }, l: GoValue) => {
      const e = elements(l, "Cannot chunk type");
      const n = Number(size.value);
      const out: unknown[][] = [];
      for (let i = 0; i < e.length; i += n) out.push(e.slice(i, i + n));
      return typedSlice(out, "[][]interface {}");
    }),
  ),
  concat: goFunc(
    [],
    (...lists: GoValue[]) => {
      const out: unknown[] = [];
      for (const l of lists) {
        const e = sliceElements(l);
        if (e === undefined) throw new FuncError(`Cannot concat type ${reflectKind(l)} as list`);
        out.push(...e);
      }
      return out;
    },
    "any",
  ),
  sortAlpha: goFunc(["any"], (l: GoValue) => {
    const e = sliceElements(l);
    if (e === undefined) return stringSlice([strval(l)]);
    return stringSlice(
      e
        .filter((x) => x !== null)
        .map((x) => strval(x as GoValue))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }),
  tuple: goFunc([], (...v: GoValue[]) => v, "any"),
  until: goFunc(["int"], (n: { value: bigint }) => untilStep(0n, n.value, n.value < 0n ? -1n : 1n)),
  untilStep: goFunc(["int", "int", "int"], (a: { value: bigint }, b: { value: bigint }, s: { value: bigint }) =>
    untilStep(a.value, b.value, s.value),
  ),
  seq: goFunc([], (...p: { value: bigint }[]) => seq(p.map((x) => x.value)), "int"),
  toStrings: goFunc(["any"], (v: GoValue) => {
    const e = sliceElements(v);
    if (e === undefined) return stringSlice(v === null ? [] : [strval(v)]);
    return stringSlice(e.filter((x) => x !== null).map((x) => strval(x as GoValue)));
  }),
};

/** How many elements untilStep(start, stop, step) builds, charged before one is built. */
function untilStepLength(start: bigint, stop: bigint, step: bigint): bigint {
  if (stop < start) return step >= 0n ? 0n : (start - stop + -step - 1n) / -step;
  return step > 0n ? (stop - start + step - 1n) / step : 0n;
}

function untilStep(start: bigint, stop: bigint, step: bigint): unknown[] {
  chargeElements(untilStepLength(start, stop, step), "a list");
  const v: unknown[] = [];
  if (stop < start) {
    if (step >= 0n) return typedSlice(v, "[]int");
    for (let i = start; i > stop; i += step) v.push(int(i));
  } else if (step > 0n) {
    for (let i = start; i < stop; i += step) v.push(int(i));
  }
  return typedSlice(v, "[]int");
}

function seq(p: bigint[]): string {
  const str = (l: unknown[]): string => l.map((x) => String((x as { value: bigint }).value)).join(" ");
  if (p.length === 1) {
    const end = p[0] ?? 0n;
    const inc = end < 1n ? -1n : 1n;
    return str(untilStep(1n, end + inc, inc));
  }
  if (p.length === 2) {
    const [start = 0n, end = 0n] = p;
    const step = end < start ? -1n : 1n;
    return str(untilStep(start, end + step, step));
  }
  if (p.length === 3) {
    const [start = 0n, step = 0n, end = 0n] = p;
    let inc = 1n;
    if (end < start) {
      inc = -1n;
      if (step > 0n) return "";
    }
    return str(untilStep(start, end + inc, step));
  }
  return "";
}
