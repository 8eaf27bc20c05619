/**
 * Turning a thrown expression error into an Outcome: data pending (a missing key, field or index
 * on an observed object: wait) versus a real error (type error, bad conversion: stop), with the
 * missing path spelled out so `kro render` and the status can say what is being waited on.
 */
import { isDataPending, isExprError } from "../../expr/index.js";
import type { Outcome } from "../dialect.js";

const CHAIN_CHAR = /[\w.?[\]"']/;

/** `svc.status.loadBalancer` for a failed read of `loadBalancer` in `"x" + svc.status.loadBalancer.ingress[0]`. */
export function missingPathOf(expression: string, end: number | undefined): string | undefined {
  if (end === undefined || end > expression.length) return undefined;
  let start = end;
  while (start > 0 && CHAIN_CHAR.test(expression.charAt(start - 1))) start--;
  const chain = expression.slice(start, end).replaceAll("?", "");
  return chain === "" ? undefined : chain;
}

/** `where` names the field, e.g. `spec.resources[0].template.spec.replicas`. */
export function failure(e: unknown, where: string): Outcome<never> {
  if (isDataPending(e)) {
    const missingPath = missingPathOf(e.expression, e.range?.end);
    return {
      ok: false,
      pending: {
        kind: "data-pending",
        message: `${where}: waiting for ${missingPath ?? "data"} (${e.message})`,
        expression: e.expression,
        ...(missingPath === undefined ? {} : { missingPath }),
      },
    };
  }
  if (isExprError(e)) return { ok: false, error: `${where}: expression ${JSON.stringify(e.expression)}: ${e.message}` };
  return { ok: false, error: `${where}: ${e instanceof Error ? e.message : String(e)}` };
}
