/**
 * A label selector as kubectl and list requests write it (`app=web,tier!=db,env in (a,b),!legacy`)
 * turned into the LabelSelector object admission configurations take (objectSelector). Pure.
 */
export interface LabelSelectorObject {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: {
    readonly key: string;
    readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    readonly values?: string[];
  }[];
}

/** A selector's terms, trimmed: split on the commas that separate terms (not those inside a value list). */
export function selectorTerms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out.map((t) => t.trim()).filter((t) => t !== "");
}

const SET = /^([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)$/;
const EQUALS = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/;
const KEY = /^(!?)\s*([^\s!=(),]+)$/;

/** The selector's object form; throws with the term it cannot read. */
export function parseLabelSelector(selector: string): LabelSelectorObject {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelectorObject["matchExpressions"]> = [];
  for (const term of selectorTerms(selector)) {
    const set = SET.exec(term);
    const equals = EQUALS.exec(term);
    const key = KEY.exec(term);
    if (set !== null) {
      const values = (set[3] ?? "")
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      matchExpressions.push({ key: set[1] ?? "", operator: set[2] === "in" ? "In" : "NotIn", values });
    } else if (equals !== null && equals[2] !== "!=") matchLabels[equals[1] ?? ""] = equals[3] ?? "";
    else if (equals !== null)
      matchExpressions.push({ key: equals[1] ?? "", operator: "NotIn", values: [equals[3] ?? ""] });
    else if (key !== null)
      matchExpressions.push({ key: key[2] ?? "", operator: key[1] === "!" ? "DoesNotExist" : "Exists" });
    else throw new Error(`cannot read the label selector term ${JSON.stringify(term)} in ${JSON.stringify(selector)}`);
  }
  return {
    ...(Object.keys(matchLabels).length > 0 ? { matchLabels } : {}),
    ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
  };
}
