// graph: the compile core — both dialects → one immutable CompiledGraph, CRD synthesis, pictures.
// No I/O of any kind: schemas of child kinds arrive through resolver ports passed in.
export { applyWaves, deletionWaves, findCycle, formatCycle, topologicalOrder, type DagInput, type TopologicalResult } from "./dag.js";
export { MAX_COLLECTION_DIMENSIONS, RESERVED_IDS, checkIdentifier, checkKind, checkUniqueIds } from "./naming.js";
