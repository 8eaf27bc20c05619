// inspect: what the controller did, read from outside it with the reader's own client — a live
// instance evaluated as the controller does, its tree (`kro tree`), and the read-only web view
// (`kro ui`, the controller's endpoint). It reads; it never writes, and never reads with rights
// other than the client it is given. It knows no reconciler (the controller passes its graphs in).
export { humanAge } from "./human-age.js";
export {
  evaluateLiveInstance,
  fetchWatched,
  InstanceNotFoundError,
  MAX_ROUNDS,
  selectorString,
  placesNamed,
  type ClusterReads,
  type LiveInstance,
  type ReadScope,
} from "./live-instance.js";
export { renderSvg } from "./render-svg.js";
export { rolloutProgress, rolloutReport, type RgdWithConditions } from "./rollout-report.js";
export {
  applyErrorsFrom,
  instanceTreeOf,
  TREE_STATES,
  treeHasError,
  type InstanceTree,
  type TreeNode,
  type TreeObject,
  type TreeState,
} from "./tree-model.js";
export {
  apiVersionOf,
  childApiVersionsOf,
  createTreeReader,
  graphCacheKey,
  servedKind,
  TreeReadError,
  type GraphSource,
  type ServedKind,
  type TreeReader,
} from "./tree-reader.js";
export { createSnapshotReader, escapeHtml, snapshotSession, startUiServer } from "./web/index.js";
export type {
  PlainReply,
  SessionAnswer,
  SnapshotOptions,
  SnapshotReader,
  UiServer,
  UiServerOptions,
  UiSession,
} from "./web/index.js";
