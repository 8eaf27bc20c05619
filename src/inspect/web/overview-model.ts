/**
 * The overview as data: per RGD the count of its instances in each state, and one filtered,
 * paged list of instances. Everything comes from the RGD list and one list of instances per
 * served kind — no child is read — so it stays cheap at thousands of instances. Pure.
 */
import { rolloutProgress } from "../rollout-report.js";
import { compareCodeUnits } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { INSTANCE_STATE_ORDER, INSTANCE_STATE_TEXT, instanceStatusOf, type InstanceState } from "./instance-state.js";
import { age, instanceHref, mapRead, rgdHref, rgdState, type Read, type RowState } from "./view-model.js";

/** One RGD as read: its kind, and the instances of that kind the asker may list. */
export interface RgdListing {
  readonly rgd: KubeObject;
  /** The kind it serves (undefined while its CRD is not served, or its spec names none). */
  readonly kind?: { readonly apiVersion: string; readonly kind: string };
  /** Which namespaces the instance list covers: all, one asked for, or the asker's own when listing all was refused. */
  readonly scope: string;
  readonly instances: Read<readonly KubeObject[]>;
}

export interface OverviewSnapshot {
  /** The API server, and whose view it is. */
  readonly server: string;
  readonly rgds: Read<readonly RgdListing[]>;
}

/** What the person asked to see (the page's query parameters). */
export interface ListFilter {
  readonly namespace?: string;
  readonly rgd?: string;
  readonly state?: InstanceState;
  /** Text every shown instance's namespace/name, kind or reason contains (case-insensitive). */
  readonly q?: string;
  /** 1-based. */
  readonly page: number;
}

export const PAGE_SIZE = 50;

export type StateCounts = Readonly<Record<InstanceState, number>>;

export interface RgdRow {
  readonly name: string;
  readonly href: string;
  readonly kind: string;
  readonly state: RowState;
  readonly stateText: string;
  readonly scope: string;
  readonly total: number;
  readonly counts: StateCounts;
  /** Its instances could not be listed: why (shown once, in its row). */
  readonly refused?: Read<never> & { ok: false };
  /** Under spec.rollout: instances healthy at the rollout's target, out of all. */
  readonly rollout?: { readonly updated: number; readonly total: number };
}

export interface InstanceRow {
  readonly key: string;
  readonly rgd: string;
  readonly kind: string;
  readonly state: InstanceState;
  readonly stateText: string;
  readonly reason: string;
  /** The row above says the same reason: a list of 50 alike instances shows it once, then a ditto mark. */
  readonly sameReasonAsAbove?: boolean;
  readonly age: string;
  readonly href: string;
}

export interface InstanceList {
  readonly rows: readonly InstanceRow[];
  /** Instances the filter keeps, and all listed. */
  readonly matched: number;
  readonly listed: number;
  /** 1-based positions of the first and last row shown (0, 0 when none). */
  readonly first: number;
  readonly last: number;
  readonly page: number;
  readonly pages: number;
}

export interface OverviewView {
  readonly server: string;
  readonly filter: ListFilter;
  readonly rgds: Read<readonly RgdRow[]>;
  readonly list: InstanceList;
}

const isState = (v: string): v is InstanceState => (INSTANCE_STATE_ORDER as readonly string[]).includes(v);

/** The filter from the page's query; anything malformed is left out rather than refused. */
export function filterOf(query: URLSearchParams): ListFilter {
  const filter: { -readonly [K in keyof ListFilter]: ListFilter[K] } = { page: 1 };
  for (const key of ["namespace", "rgd", "q"] as const) {
    const v = query.get(key)?.trim();
    if (v !== undefined && v !== "") filter[key] = v;
  }
  const state = query.get("state");
  if (state !== null && isState(state)) filter.state = state;
  const page = Number(query.get("page") ?? "1");
  if (Number.isInteger(page) && page >= 1) filter.page = page;
  return filter;
}

/** The query of a filter (page 1 and empty fields left out), for links that change one part of it. */
export function queryOf(filter: ListFilter, change: Partial<ListFilter> = {}): string {
  const f = { ...filter, ...change };
  const params = new URLSearchParams();
  for (const key of ["namespace", "rgd", "state", "q"] as const) {
    const v = f[key];
    if (v !== undefined && v !== "") params.set(key, v);
  }
  if (f.page > 1) params.set("page", String(f.page));
  const query = params.toString();
  return query === "" ? "" : `?${query}`;
}

function emptyCounts(): Record<InstanceState, number> {
  return { ready: 0, "in-progress": 0, waiting: 0, error: 0, deleting: 0 };
}

function rowOf(listing: RgdListing, object: KubeObject, root: string, now: number): InstanceRow {
  const meta = object.metadata ?? {};
  const name = meta.name ?? "";
  const rgd = listing.rgd.metadata?.name ?? "";
  const { state, reason } = instanceStatusOf(object);
  return {
    key: meta.namespace === undefined ? name : `${meta.namespace}/${name}`,
    rgd,
    kind: listing.kind?.kind ?? "",
    state,
    stateText: INSTANCE_STATE_TEXT[state],
    reason,
    age: age(meta.creationTimestamp, now),
    href: instanceHref(root, rgd, meta.namespace, name),
  };
}

function rgdRowOf(listing: RgdListing, rows: readonly InstanceRow[], root: string): RgdRow {
  const name = listing.rgd.metadata?.name ?? "";
  const counts = emptyCounts();
  for (const r of rows) counts[r.state]++;
  const { state, text } = rgdState(listing.rgd);
  const rollout = rolloutProgress(listing.rgd);
  return {
    name,
    href: rgdHref(root, name),
    kind: listing.kind === undefined ? "(kind not served)" : listing.kind.kind,
    state,
    stateText: text,
    scope: listing.scope,
    total: rows.length,
    counts,
    ...(listing.instances.ok ? {} : { refused: listing.instances }),
    ...(rollout === undefined ? {} : { rollout }),
  };
}

function matches(row: InstanceRow, filter: ListFilter): boolean {
  if (filter.rgd !== undefined && row.rgd !== filter.rgd) return false;
  if (filter.state !== undefined && row.state !== filter.state) return false;
  if (filter.namespace !== undefined && !row.key.startsWith(`${filter.namespace}/`)) return false;
  if (filter.q === undefined) return true;
  const q = filter.q.toLowerCase();
  return [row.key, row.kind, row.reason].some((field) => field.toLowerCase().includes(q));
}

/** One page of the rows the filter keeps; a page past the end shows the last one. */
export function pageOf(rows: readonly InstanceRow[], filter: ListFilter, listed: number): InstanceList {
  const kept = rows.filter((r) => matches(r, filter));
  const pages = Math.max(1, Math.ceil(kept.length / PAGE_SIZE));
  const page = Math.min(filter.page, pages);
  const shown = kept
    .slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
    .map((r, i, all) =>
      i > 0 && r.reason !== "" && r.reason === all[i - 1]?.reason ? { ...r, sameReasonAsAbove: true } : r,
    );
  const first = shown.length === 0 ? 0 : (page - 1) * PAGE_SIZE + 1;
  return {
    rows: shown,
    matched: kept.length,
    listed,
    first,
    last: first === 0 ? 0 : first + shown.length - 1,
    page,
    pages,
  };
}

const byKey = (a: InstanceRow, b: InstanceRow): number =>
  compareCodeUnits(a.key, b.key) || compareCodeUnits(a.rgd, b.rgd);

/** `root` is the relative address of the view's root from the page (links stay relative: no base URL needed). */
export function overviewOf(snapshot: OverviewSnapshot, filter: ListFilter, root: string, now: number): OverviewView {
  const all: InstanceRow[] = [];
  const rgds = mapRead(snapshot.rgds, (listings) =>
    [...listings]
      .sort((a, b) => compareCodeUnits(a.rgd.metadata?.name ?? "", b.rgd.metadata?.name ?? ""))
      .map((listing) => {
        const rows = listing.instances.ok ? listing.instances.value.map((o) => rowOf(listing, o, root, now)) : [];
        all.push(...rows);
        return rgdRowOf(listing, rows, root);
      }),
  );
  // Problems first: a person opening the view at 1,000 instances looks for what is wrong.
  const rank = (r: InstanceRow): number => (r.state === "error" ? 0 : r.state === "ready" ? 2 : 1);
  all.sort((a, b) => rank(a) - rank(b) || byKey(a, b));
  return { server: snapshot.server, filter, rgds, list: pageOf(all, filter, all.length) };
}
