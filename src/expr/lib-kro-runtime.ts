/**
 * Opt-in kro functions: `omit()` (feature gate CELOmitFunction — a sentinel removed from the
 * rendered object) and `runtime.newCondition` / `runtime.condition` (status.conditions only, §6.11).
 */
import {
  LibraryError,
  declareNamespace,
  isCelMap,
  mapEntries,
  type CelEnvironment,
  type CelMap,
} from "./lib-support.js";

/** The value `omit()` returns; result conversion drops the field or list element holding it. */
export class OmitSentinel {
  static readonly instance = new OmitSentinel();
  readonly kind = "omit";
  private constructor() {}
}

export function registerOmitLibrary(env: CelEnvironment): void {
  env.registerType("kro.Omit", OmitSentinel);
  env.registerFunction("omit(): dyn", () => OmitSentinel.instance);
}

const CONDITION_FIELDS = ["type", "status", "reason", "message"] as const;

export function registerRuntimeLibrary(env: CelEnvironment): void {
  const runtime = declareNamespace(env, "runtime");
  env.registerFunction(`${runtime}.newCondition(map<string, dyn>): map<string, dyn>`, (_ns: unknown, m: CelMap) => {
    const fields = new Map(mapEntries(m));
    for (const key of fields.keys()) {
      if (!CONDITION_FIELDS.includes(key as (typeof CONDITION_FIELDS)[number]))
        throw new LibraryError("invalid_argument", `runtime.newCondition: unknown field ${String(key)}`);
    }
    for (const required of ["type", "status"]) {
      if (typeof fields.get(required) !== "string" || fields.get(required) === "")
        throw new LibraryError("invalid_argument", `runtime.newCondition: ${required} is required`);
    }
    const status = fields.get("status");
    if (status !== "True" && status !== "False" && status !== "Unknown")
      throw new LibraryError(
        "invalid_argument",
        `runtime.newCondition: status must be True, False or Unknown, got ${String(status)}`,
      );
    return Object.fromEntries(CONDITION_FIELDS.map((f) => [f, typeof fields.get(f) === "string" ? fields.get(f) : ""]));
  });
  env.registerFunction(
    `${runtime}.condition(dyn, string): map<string, dyn>`,
    (_ns: unknown, obj: unknown, type: string) => {
      const status = isCelMap(obj) ? new Map(mapEntries(obj)).get("status") : undefined;
      const conditions = isCelMap(status) ? new Map(mapEntries(status)).get("conditions") : undefined;
      const found: unknown = Array.isArray(conditions)
        ? conditions.find((c: unknown) => isCelMap(c) && new Map(mapEntries(c)).get("type") === type)
        : undefined;
      // A missing condition reads as an empty one of that type (kro §6.11).
      return isCelMap(found) ? found : { type, status: "", reason: "", message: "" };
    },
  );
}
