// The API server's audit log (JSON lines, see setup.mjs's policy): who wrote what, and when the
// server received it — ground truth that no controller metric can fake. Replicas are told apart
// by their User-Agent, which names the replica: "kro-ts/<version> (<replica id>)".
import { readFile } from "node:fs/promises";

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export async function readAuditLog(file) {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

export const sentBy = (event, identity) => (event.userAgent ?? "").endsWith(`(${identity})`);

/** Writes sent by one replica, received at or after `since` (an audit timestamp; same format, so strings compare). */
export function writesBy(events, identity, since = "") {
  return events.filter((e) => WRITE_VERBS.has(e.verb) && sentBy(e, identity) && e.requestReceivedTimestamp >= since);
}

/** The first write of the Lease by `identity` received at or after `since`: its acquisition. */
export function leaseTakeover(events, lease, identity, since = "") {
  return events.find(
    (e) =>
      e.verb === "update" &&
      e.objectRef?.resource === "leases" &&
      e.objectRef.name === lease.name &&
      e.objectRef.namespace === lease.namespace &&
      sentBy(e, identity) &&
      e.responseStatus?.code === 200 &&
      e.requestReceivedTimestamp >= since,
  );
}

/** A Date as audit timestamps are written (RFC 3339, microseconds, UTC). */
export const auditTime = (date) => date.toISOString().replace("Z", "000Z");
