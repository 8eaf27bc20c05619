/**
 * One RGD's page as data: its state and conditions, its picture (or why it has none here), the
 * counts and the list of its instances (the overview's, filtered to it), and the Events about it. Pure.
 */
import type { KubeObject } from "../../kube/index.js";
import { rolloutProgress, rolloutReport, type RgdWithConditions } from "../rollout-report.js";
import {
  overviewOf,
  type ListFilter,
  type OverviewSnapshot,
  type OverviewView,
  type RgdRow,
} from "./overview-model.js";
import {
  conditionsOf,
  eventViews,
  graphUrlOf,
  mapRead,
  withoutRepeats,
  type ConditionView,
  type EventView,
  type Read,
} from "./view-model.js";

export interface RgdPageSnapshot {
  readonly rgdName: string;
  /** The asker's RGD list, narrowed to this RGD (empty when it is not listed for them). */
  readonly overview: OverviewSnapshot;
  /** Compiling it here failed with this (no picture). */
  readonly compileError?: string;
  readonly events: Read<readonly KubeObject[]>;
}

export interface RgdPageView {
  readonly rgdName: string;
  readonly overview: OverviewView;
  /** Undefined when the asker's RGD list does not hold it. */
  readonly row?: RgdRow;
  readonly conditions: readonly ConditionView[];
  readonly compileError?: string;
  readonly graphUrl?: string;
  /** Under spec.rollout: what `kro rollout status` prints, and the progress it reports. */
  readonly rollout?: { readonly report: string; readonly updated: number; readonly total: number };
  readonly events: Read<readonly EventView[]>;
}

export function rgdPageOf(snapshot: RgdPageSnapshot, filter: ListFilter, root: string, now: number): RgdPageView {
  const overview = overviewOf(snapshot.overview, { ...filter, rgd: snapshot.rgdName }, root, now);
  const listing = snapshot.overview.rgds.ok
    ? snapshot.overview.rgds.value.find((l) => l.rgd.metadata?.name === snapshot.rgdName)
    : undefined;
  const row = overview.rgds.ok ? overview.rgds.value.find((r) => r.name === snapshot.rgdName) : undefined;
  const rgd = listing?.rgd as RgdWithConditions | undefined;
  const progress = rgd === undefined ? undefined : rolloutProgress(rgd);
  return {
    rgdName: snapshot.rgdName,
    overview,
    ...(row === undefined ? {} : { row }),
    conditions: listing === undefined ? [] : withoutRepeats(conditionsOf(listing.rgd)),
    ...(snapshot.compileError === undefined ? {} : { compileError: snapshot.compileError }),
    ...(listing === undefined || snapshot.compileError !== undefined || listing.kind === undefined
      ? {}
      : { graphUrl: graphUrlOf(root, listing.rgd) }),
    ...(rgd === undefined || rgd.spec?.rollout === undefined
      ? {}
      : { rollout: { report: rolloutReport(rgd), updated: progress?.updated ?? 0, total: progress?.total ?? 0 } }),
    events: mapRead(snapshot.events, (list) => eventViews(list, now)),
  };
}
