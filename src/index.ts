// The kro-ts library entry: re-exports the public APIs for TypeScript users who embed kro-ts.
// Modules never import this file (see .dependency-cruiser.cjs); it only re-exports.
export * from "./kube/index.js";
