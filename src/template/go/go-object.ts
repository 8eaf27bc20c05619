/**
 * Values that carry Go methods: the small "object model" Helm's data needs (`.Files.Get`,
 * `.Capabilities.APIVersions.Has`, `.Capabilities.KubeVersion.GitVersion`, a `time.Time`, a
 * `*semver.Version`). A GoObject has a Go type name, a kind (struct, map, slice or string),
 * its struct fields (in declaration order) or its underlying map/slice/string, and methods.
 * The executor resolves `.Name` as Go does: a method first, then a struct field or a map key.
 */
import type { GoFunction } from "./functions.js";

export type GoObjectKind = "struct" | "map" | "slice" | "string";

export interface GoObjectSpec {
  /** reflect.Type.String(): "*chartutil.Capabilities", "engine.files", "time.Time". */
  readonly typeName: string;
  readonly kind: GoObjectKind;
  /** Struct fields in declaration order (kind "struct"). */
  readonly fields?: Readonly<Record<string, unknown>>;
  /** The underlying map, slice or string (other kinds); elements are executor values. */
  readonly value?: unknown;
  readonly methods?: Readonly<Record<string, GoFunction>>;
  /** fmt.Stringer (or error): how %v prints the value. */
  readonly stringer?: () => string;
  /** What encoding/json (and so toJson/toYaml) makes of the value. */
  readonly json?: () => unknown;
  /** What a missing key of a typed map yields under missingkey=zero (the element type's zero value). */
  readonly zeroElem?: unknown;
  /** The bytes of a []byte (kind "slice"), so strval/toString give the string back as Sprig does. */
  readonly bytes?: Uint8Array;
}

export class GoObject {
  constructor(readonly spec: GoObjectSpec) {}
  get typeName(): string {
    return this.spec.typeName;
  }
  method(name: string): GoFunction | undefined {
    const m = this.spec.methods;
    return m !== undefined && Object.hasOwn(m, name) ? m[name] : undefined;
  }
  /** The value that len/index/range/printing see: struct fields or the underlying value. */
  get underlying(): unknown {
    return this.spec.kind === "struct" ? this.spec.fields : this.spec.value;
  }
}
