/**
 * The overview's HTML: the filter form (a plain GET form: it works without script), one row per
 * RGD with its instances counted by state (each count links to that filtered list), and one page
 * of the filtered instance list with where it is ("showing 51–100 of 1,000"). Pure.
 */
import { INSTANCE_STATE_ORDER, INSTANCE_STATE_TEXT } from "./instance-state.js";
import { queryOf, type InstanceList, type ListFilter, type OverviewView, type RgdRow } from "./overview-model.js";
import { contextLine, count, escapeHtml, refused } from "./view-html.js";
import type { Read } from "./view-model.js";

function option(value: string, label: string, selected: boolean): string {
  return `<option value="${escapeHtml(value)}"${selected ? " selected" : ""}>${escapeHtml(label)}</option>`;
}

/** `action` is the page's own address ("./" on the overview, "" for the page itself). */
export function filterForm(filter: ListFilter, rgdNames: readonly string[] | undefined, action: string): string {
  const rgdField =
    rgdNames === undefined
      ? ""
      : `<label>RGD <select name="rgd">${option("", "all", filter.rgd === undefined)}${rgdNames.map((n) => option(n, n, n === filter.rgd)).join("")}</select></label>`;
  const states = `<label>state <select name="state">${option("", "all", filter.state === undefined)}${INSTANCE_STATE_ORDER.map((s) => option(s, INSTANCE_STATE_TEXT[s], s === filter.state)).join("")}</select></label>`;
  return `<form class="filter" method="get" action="${escapeHtml(action)}">
<label>namespace <input name="namespace" value="${escapeHtml(filter.namespace ?? "")}" placeholder="all" size="14"></label>
${rgdField}${states}
<label>text <input name="q" type="search" value="${escapeHtml(filter.q ?? "")}" placeholder="name, kind or reason" size="22"></label>
<button type="submit">filter</button>${queryOf(filter, { page: 1 }) === "" ? "" : ` <a href="${escapeHtml(action === "" ? "?" : action)}">clear</a>`}
</form>`;
}

function countCell(
  row: RgdRow,
  state: (typeof INSTANCE_STATE_ORDER)[number],
  filter: ListFilter,
  action: string,
): string {
  const n = row.counts[state];
  if (n === 0) return `<td class="count zero">0</td>`;
  const href = `${action}${queryOf(filter, { rgd: row.name, state, page: 1 })}`;
  return `<td class="count state-${state}"><a href="${escapeHtml(href)}" data-count="${state}">${count(n)}</a></td>`;
}

function rgdRow(row: RgdRow, filter: ListFilter, action: string): string {
  const cells = INSTANCE_STATE_ORDER.map((s) => countCell(row, s, filter, action)).join("");
  const status =
    row.refused === undefined
      ? `<td class="muted">${escapeHtml(row.scope)}</td>`
      : `<td>${refused(row.refused, `instances of ${row.kind} (${row.scope})`)}</td>`;
  const rollout =
    row.rollout === undefined || row.rollout.updated >= row.rollout.total
      ? ""
      : ` <span class="rollout" data-rollout="${String(row.rollout.updated)}/${String(row.rollout.total)}">· rolling out ${count(row.rollout.updated)}/${count(row.rollout.total)}</span>`;
  return `<tr class="rgd state-${row.state}" data-rgd="${escapeHtml(row.name)}" data-state="${row.state}" data-total="${String(row.total)}"><td><span class="dot"></span><a href="${escapeHtml(row.href)}">${escapeHtml(row.name)}</a></td><td>${escapeHtml(row.kind)}</td><td class="state">${escapeHtml(row.stateText)}${rollout}</td><td class="count">${count(row.total)}</td>${cells}${status}</tr>`;
}

export function rgdTable(rgds: Read<readonly RgdRow[]>, filter: ListFilter, action: string): string {
  if (!rgds.ok) return refused(rgds, "ResourceGraphDefinitions");
  if (rgds.value.length === 0) return `<p class="muted">no ResourceGraphDefinitions</p>`;
  const heads = INSTANCE_STATE_ORDER.map((s) => `<th class="count">${escapeHtml(INSTANCE_STATE_TEXT[s])}</th>`).join(
    "",
  );
  return `<table class="rgds"><thead><tr><th>RGD</th><th>kind</th><th>state</th><th class="count">instances</th>${heads}<th>listed in</th></tr></thead><tbody>${rgds.value.map((r) => rgdRow(r, filter, action)).join("")}</tbody></table>`;
}

function pager(list: InstanceList, filter: ListFilter, action: string): string {
  const where =
    list.matched === 0
      ? "no instances match"
      : `showing ${count(list.first)}–${count(list.last)} of ${count(list.matched)}`;
  const of = list.matched === list.listed ? "" : ` <span class="muted">(${count(list.listed)} listed)</span>`;
  const link = (page: number, label: string, rel: string): string =>
    `<a rel="${rel}" href="${escapeHtml(`${action}${queryOf(filter, { page })}` || "?")}">${label}</a>`;
  const prev = list.page > 1 ? link(list.page - 1, "‹ previous", "prev") : `<span class="muted">‹ previous</span>`;
  const next = list.page < list.pages ? link(list.page + 1, "next ›", "next") : `<span class="muted">next ›</span>`;
  return `<p class="pager" data-first="${String(list.first)}" data-last="${String(list.last)}" data-matched="${String(list.matched)}"><span class="where">${where}</span>${of} · page ${count(list.page)} of ${count(list.pages)} · ${prev} ${next}</p>`;
}

const DITTO = `<span class="muted ditto" title="the same as the row above">↑</span>`;

export function instanceTable(list: InstanceList, filter: ListFilter, action: string): string {
  const rows = list.rows.map(
    (r) =>
      `<tr class="instance state-${r.state}" data-instance="${escapeHtml(r.key)}" data-state="${r.state}"><td><span class="dot"></span><a href="${escapeHtml(r.href)}">${escapeHtml(r.key)}</a></td><td>${escapeHtml(r.kind)}</td><td class="state">${escapeHtml(r.stateText)}</td><td class="reason">${r.sameReasonAsAbove === true ? DITTO : escapeHtml(r.reason)}</td><td>${escapeHtml(r.age)}</td></tr>`,
  );
  const table =
    rows.length === 0
      ? ""
      : `<table class="instances"><thead><tr><th>instance</th><th>kind</th><th>state</th><th>reason</th><th>age</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  return `${pager(list, filter, action)}${table}`;
}

export function renderOverview(view: OverviewView): string {
  const names = view.rgds.ok ? view.rgds.value.map((r) => r.name) : undefined;
  return `${contextLine(view.server)}
${filterForm(view.filter, names, "./")}
<h2>ResourceGraphDefinitions</h2>
<div id="rgds">${rgdTable(view.rgds, view.filter, "./")}</div>
<h2>Instances</h2>
<div id="instances">${instanceTable(view.list, view.filter, "./")}</div>`;
}
