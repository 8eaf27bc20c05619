/**
 * `kro ui`'s room: the read-only web view. The snapshot of the cluster (read with the caller's
 * client, refusals kept as "not permitted"), the pure view model and its HTML, the page's own
 * assets (no CDN), and the HTTP server. It may read the cluster; it never writes to it.
 */
export { createSnapshotReader, type SnapshotOptions, type SnapshotReader } from "./cluster-snapshot.js";
export { startUiServer, type UiServer, type UiServerOptions } from "./ui-server.js";
export { uiViewOf, type ClusterSnapshot, type UiView } from "./view-model.js";
export { renderView } from "./view-html.js";
