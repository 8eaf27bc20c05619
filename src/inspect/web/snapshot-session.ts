/**
 * One person's view of the cluster, as the web server serves it: each page's read made with that
 * person's client and shared by every request for the same page within half a refresh interval
 * (several open tabs, or a page and its refresh, do not multiply the reads), and the pictures of
 * the RGDs the person's last read listed. `kro ui` has one session (its kubeconfig's user); the
 * controller's endpoint one per authenticated user.
 */
import { graphPicture, NODE_STATES, type NodeState } from "../../graph/index.js";
import { renderSvg } from "../render-svg.js";
import type { SnapshotReader } from "./cluster-snapshot.js";
import type { InstancePageSnapshot } from "./instance-model.js";
import type { OverviewSnapshot } from "./overview-model.js";
import type { RgdPageSnapshot } from "./rgd-model.js";

export interface UiSession {
  overview(namespace?: string): Promise<OverviewSnapshot>;
  rgdPage(rgdName: string, namespace?: string): Promise<RgdPageSnapshot>;
  instancePage(rgdName: string, namespace: string | undefined, name: string): Promise<InstancePageSnapshot>;
  /** The SVG picture of an RGD the last read listed, painted with `colors`; undefined for any other. */
  picture(rgd: string, generation: string, colors?: string): Promise<string | undefined>;
}

/** Pictures kept per session (an RGD's picture changes only with its generation and colours). */
const MAX_PICTURES = 256;
/** Page reads kept per session at once (each lives half a refresh interval). */
const MAX_READS = 64;

/** Reads shared while fresh: one in flight per key, its answer reused for `ttlMs`. */
function sharedReads(ttlMs: number, now: () => number) {
  const reads = new Map<string, { at: number; value: Promise<unknown> }>();
  return <T>(key: string, read: () => Promise<T>): Promise<T> => {
    const known = reads.get(key);
    if (known !== undefined && now() - known.at < ttlMs) return known.value as Promise<T>;
    if (reads.size >= MAX_READS) for (const [k, v] of reads) if (now() - v.at >= ttlMs) reads.delete(k);
    if (reads.size >= MAX_READS) reads.clear();
    const value = read();
    reads.set(key, { at: now(), value });
    // A failed read is not kept: the next request tries again.
    value.catch(() => reads.delete(key));
    return value;
  };
}

/** `id:state,…` from a picture's address: unknown states are dropped (the address is the asker's to write). */
export function colorsOf(param: string | undefined): Record<string, NodeState> | undefined {
  if (param === undefined || param === "") return undefined;
  const colors: Record<string, NodeState> = {};
  for (const pair of param.split(",")) {
    const at = pair.lastIndexOf(":");
    const state = pair.slice(at + 1);
    if (at > 0 && (NODE_STATES as readonly string[]).includes(state)) colors[pair.slice(0, at)] = state as NodeState;
  }
  return colors;
}

export function snapshotSession(reader: SnapshotReader, refreshMs: number, now: () => number = Date.now): UiSession {
  const shared = sharedReads(refreshMs / 2, now);
  const pictures = new Map<string, string>();
  return {
    overview: (namespace) => shared(`o\n${namespace ?? ""}`, () => reader.overview(namespace)),
    rgdPage: (rgdName, namespace) =>
      shared(`r\n${rgdName}\n${namespace ?? ""}`, () => reader.rgdPage(rgdName, namespace)),
    instancePage: (rgdName, namespace, name) =>
      shared(`i\n${rgdName}\n${namespace ?? ""}\n${name}`, () => reader.instancePage(rgdName, namespace, name)),
    async picture(rgd, generation, colors) {
      // Asked of the reader every time: it answers only for what its last read listed.
      const graph = await reader.graph(rgd, generation);
      if (graph === undefined) return undefined;
      const colorBy = colorsOf(colors);
      const key = `${rgd}@${generation}#${JSON.stringify(colorBy ?? {})}`;
      const known = pictures.get(key);
      if (known !== undefined) return known;
      const svg = await renderSvg(graphPicture(graph, "dot", colorBy === undefined ? {} : { colorBy }));
      if (pictures.size >= MAX_PICTURES) pictures.clear();
      pictures.set(key, svg);
      return svg;
    },
  };
}
