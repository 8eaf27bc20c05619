/**
 * One person's view of the cluster, as the web server serves it: the snapshot read with that
 * person's client, shared by every request within half a refresh interval (so several open tabs
 * do not multiply the reads), and the pictures of the RGDs that snapshot showed. `kro ui` has one
 * session (its kubeconfig's user); the controller's endpoint one per authenticated user.
 */
import { graphPicture } from "../../graph/index.js";
import { renderSvg } from "../render-svg.js";
import type { SnapshotReader } from "./cluster-snapshot.js";
import { uiViewOf, type UiView } from "./view-model.js";

export interface UiSession {
  view(): Promise<UiView>;
  /** The SVG picture of an RGD the last view showed; undefined for any other. */
  picture(rgd: string, generation: string): Promise<string | undefined>;
}

/** Pictures kept per session (an RGD's picture changes only with its generation). */
const MAX_PICTURES = 256;

export function snapshotSession(reader: SnapshotReader, refreshMs: number, now: () => number = Date.now): UiSession {
  let latest: { at: number; view: UiView } | undefined;
  let inFlight: Promise<UiView> | undefined;
  const pictures = new Map<string, string>();
  return {
    view() {
      if (latest !== undefined && now() - latest.at < refreshMs / 2) return Promise.resolve(latest.view);
      inFlight ??= (async () => {
        try {
          const view = uiViewOf(await reader.read(), now());
          latest = { at: now(), view };
          return view;
        } finally {
          inFlight = undefined;
        }
      })();
      return inFlight;
    },
    async picture(rgd, generation) {
      // Asked of the reader every time: it answers only for what its last read showed.
      const graph = reader.graph(rgd, generation);
      if (graph === undefined) return undefined;
      const key = `${rgd}@${generation}`;
      const known = pictures.get(key);
      if (known !== undefined) return known;
      const svg = await renderSvg(graphPicture(graph, "dot"));
      if (pictures.size >= MAX_PICTURES) pictures.clear();
      pictures.set(key, svg);
      return svg;
    },
  };
}
