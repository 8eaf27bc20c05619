// expr/library: kro's CEL function libraries, one file per family — Kubernetes (quantity, semver,
// net, the basics), kro's own (seeded random values, json, hash, map merges, list edits, base64),
// strings, lists, conversions, comparisons, comprehensions, optionals, time zones — each
// registered on an environment by environment.ts. It builds on the root's plumbing (lib-support, lib-kro-runtime's omit, values,
// compare, string-format, macro-support) and never on the environment, the checker or the compiler.
export { registerComparisonsLibrary } from "./lib-comparisons.js";
export { registerComprehensionsLibrary } from "./lib-comprehensions.js";
export { GET_MILLISECONDS, registerConversionsLibrary } from "./lib-conversions.js";
export { registerK8sBasicLibraries } from "./lib-k8s-basic.js";
export { registerNetLibraries } from "./lib-k8s-net.js";
export { registerQuantityLibrary } from "./lib-k8s-quantity.js";
export { registerSemverLibrary } from "./lib-k8s-semver.js";
export { registerKroLibraries } from "./lib-kro.js";
export { registerListsExtLibrary } from "./lib-lists-ext.js";
export { OPTIONAL_NONE_DYN, registerOptionalsLibrary } from "./lib-optionals.js";
export { ASCII_STRING_METHODS, CODE_POINT_STRING_METHODS, registerStringsLibrary } from "./lib-strings.js";
export { registerTimezonesLibrary, TZ_ACCESSORS } from "./lib-timezones.js";
