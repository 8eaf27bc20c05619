/**
 * The read-only web view shared by `kro ui` and the controller's endpoint: the snapshot of the
 * cluster (read with the asker's client, refusals kept as "not permitted"), one asker's session,
 * the pure view model and its HTML, the page's own assets (no CDN), and the HTTP(S) server that
 * asks who is asking before it serves anything. It may read the cluster; it never writes to it.
 */
export { createSnapshotReader, type SnapshotOptions, type SnapshotReader } from "./cluster-snapshot.js";
export { snapshotSession, type UiSession } from "./snapshot-session.js";
export {
  startUiServer,
  type PlainReply,
  type SessionAnswer,
  type UiServer,
  type UiServerOptions,
} from "./ui-server.js";
export type { OverviewSnapshot } from "./overview-model.js";
export { escapeHtml } from "./view-html.js";
