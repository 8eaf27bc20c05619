/**
 * One instance's page as HTML: where it is (overview › RGD › instance), its state, the graph
 * picture painted with its nodes' states, its children (the tree as a table, with cluster), its
 * conditions and the Events about it. A refused read of the instance itself is said once and
 * nothing else is shown. Pure.
 */
import type { ChildRow, InstancePageView } from "./instance-model.js";
import { conditionsTable, contextLine, escapeHtml, eventsTable, refused } from "./view-html.js";

/** Deeper nesting is drawn at this indent (the stylesheet has a class per level; no inline style under the CSP). */
export const MAX_DRAWN_DEPTH = 8;

function childRow(row: ChildRow): string {
  const depth = String(Math.min(row.depth, MAX_DRAWN_DEPTH));
  const name = row.name === "" ? `<span class="muted">none</span>` : escapeHtml(row.name);
  return `<tr class="node state-${row.state}" data-state="${row.state}" data-depth="${String(row.depth)}" data-node="${escapeHtml(row.node)}"><td class="depth-${depth}"><span class="dot"></span>${escapeHtml(row.node)}</td><td>${escapeHtml(row.kind)}</td><td>${name}</td><td>${escapeHtml(row.namespace)}</td><td class="cluster">${escapeHtml(row.cluster === "" ? "hub" : row.cluster)}</td><td class="state">${escapeHtml(row.stateText)}</td><td class="reason">${escapeHtml(row.reason)}</td><td>${escapeHtml(row.age)}</td></tr>`;
}

function childrenTable(view: InstancePageView): string {
  if (!view.children.ok) return refused(view.children, `the children of ${view.key}`);
  if (view.children.value.length === 0) return `<p class="muted">its graph has no resources</p>`;
  return `<table class="children"><thead><tr><th>node</th><th>kind</th><th>name</th><th>namespace</th><th>cluster</th><th>state</th><th>reason</th><th>age</th></tr></thead><tbody>${view.children.value.map(childRow).join("")}</tbody></table>`;
}

export function renderInstancePage(view: InstancePageView, root: string): string {
  const crumbs = `<nav class="crumbs"><a href="${escapeHtml(root)}">overview</a> › <a href="${escapeHtml(view.rgdHref)}">${escapeHtml(view.rgdName)}</a> › ${escapeHtml(view.key)}</nav>`;
  if (!view.object.ok)
    return `${contextLine(view.server)}${crumbs}${refused(view.object, `${view.rgdName} instance ${view.key}`)}`;
  const state = view.state ?? "waiting";
  const picture =
    view.graphUrl === undefined
      ? ""
      : `<img class="graph" alt="graph of ${escapeHtml(view.key)}, coloured by state" src="${escapeHtml(view.graphUrl)}">`;
  return `${contextLine(view.server)}${crumbs}
<section class="instance-page state-${state}" data-instance-page="${escapeHtml(view.key)}" data-state="${state}">
<h2><span class="dot"></span>${escapeHtml(view.key)} <span class="state">${escapeHtml(view.stateText)}</span> <span class="muted">${escapeHtml(view.kind)} · ${escapeHtml(view.age)}</span></h2>
<div class="split">${picture}<div class="side"><h3>Conditions</h3>${conditionsTable(view.conditions)}</div></div>
<h3>Children</h3>
<div id="children">${childrenTable(view)}</div>
<h3>Events</h3>
<div id="events">${eventsTable(view.events, `Events of ${view.key}`, `${view.kind}/${view.key}`)}</div>
</section>`;
}
