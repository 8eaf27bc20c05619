/**
 * One RGD's page as HTML: its state, conditions and picture (or why it has none here), its
 * instances counted and listed (the overview's filter, fixed to this RGD), and the Events about it. Pure.
 */
import { filterForm, instanceTable, rgdTable } from "./overview-html.js";
import type { RgdPageView } from "./rgd-model.js";
import { conditionsTable, contextLine, escapeHtml, eventsTable } from "./view-html.js";

/** The rollout's progress as a bar, and the lines `kro rollout status` prints. */
function rolloutSection(view: RgdPageView): string {
  const r = view.rollout;
  if (r === undefined) return "";
  return `<h3>Rollout</h3>
<div class="rollout" data-rollout-updated="${String(r.updated)}" data-rollout-total="${String(r.total)}"><progress value="${String(r.updated)}" max="${String(Math.max(1, r.total))}"></progress> ${String(r.updated)}/${String(r.total)} healthy at the target<pre>${escapeHtml(r.report)}</pre></div>`;
}

export function renderRgdPage(view: RgdPageView, root: string): string {
  const { overview } = view;
  const crumbs = `<nav class="crumbs"><a href="${escapeHtml(root)}">overview</a> › ${escapeHtml(view.rgdName)}</nav>`;
  if (!overview.rgds.ok)
    return `${contextLine(overview.server)}${crumbs}${rgdTable(overview.rgds, overview.filter, "")}`;
  if (view.row === undefined)
    return `${contextLine(overview.server)}${crumbs}<p class="refused" data-refused="${escapeHtml(view.rgdName)}">no ResourceGraphDefinition ${escapeHtml(view.rgdName)} is listed for you</p>`;
  const picture =
    view.graphUrl === undefined
      ? ""
      : `<img class="graph" alt="graph of ${escapeHtml(view.rgdName)}" src="${escapeHtml(view.graphUrl)}">`;
  const compile =
    view.compileError === undefined ? "" : `<p class="error-message">no graph: ${escapeHtml(view.compileError)}</p>`;
  return `${contextLine(overview.server)}${crumbs}
<section class="rgd-page state-${view.row.state}" data-rgd-page="${escapeHtml(view.rgdName)}" data-state="${view.row.state}">
<div id="rgds">${rgdTable(overview.rgds, overview.filter, "")}</div>
<div class="split">${picture}<div class="side"><h3>Conditions</h3>${conditionsTable(view.conditions)}${compile}</div></div>
${rolloutSection(view)}
<h3>Instances</h3>
${filterForm(overview.filter, undefined, "")}
<div id="instances">${instanceTable(overview.list, overview.filter, "")}</div>
<h3>Events</h3>
<div id="events">${eventsTable(view.events, `Events of ${view.rgdName}`, `ResourceGraphDefinition/${view.rgdName}`)}</div>
</section>`;
}
