/**
 * The view as an HTML fragment: the page's script swaps it in on every refresh. Every text from
 * the cluster is escaped (names, messages and expressions are a tenant's input), and the page
 * carries stable hooks (`data-rgd`, `data-instance`, `data-state`) so a browser test reads what a
 * person sees. Pure.
 */
import type { ConditionView, EventView, InstanceView, Read, RgdView, TreeRowView, UiView } from "./view-model.js";

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A read that did not happen: "not permitted" (RBAC said no) is worded apart from other failures. */
function refused(read: Read<unknown> & { ok: false }, what: string): string {
  const label = read.notPermitted ? "not permitted" : "could not read";
  return `<p class="refused${read.notPermitted ? " not-permitted" : ""}" data-refused="${escapeHtml(what)}"><strong>${label}:</strong> ${escapeHtml(what)} — ${escapeHtml(read.message)}</p>`;
}

function conditions(list: readonly ConditionView[]): string {
  if (list.length === 0) return `<p class="muted">no conditions yet</p>`;
  const rows = list.map(
    (c) =>
      `<tr class="cond-${c.status === "True" ? "true" : c.status === "False" ? "false" : "unknown"}"><td>${escapeHtml(c.type)}</td><td>${escapeHtml(c.status)}</td><td>${escapeHtml(c.reason)}</td><td class="message">${escapeHtml(c.message)}</td></tr>`,
  );
  return `<table class="conditions"><thead><tr><th>condition</th><th>status</th><th>reason</th><th>message</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** Deeper nesting is drawn at this indent (the stylesheet has a class per level; no inline style under the CSP). */
export const MAX_DRAWN_DEPTH = 8;

function treeRow(row: TreeRowView): string {
  return `<li class="node state-${row.state} depth-${String(Math.min(row.depth, MAX_DRAWN_DEPTH))}" data-state="${row.state}" data-depth="${String(row.depth)}"><span class="dot"></span><span class="label">${escapeHtml(row.label)}</span> <span class="state">${escapeHtml(row.stateText)}</span> <span class="reason">${escapeHtml(row.reason)}</span></li>`;
}

function instance(view: InstanceView): string {
  const tree = view.tree.ok
    ? `<ul class="tree">${view.tree.value.map(treeRow).join("")}</ul>`
    : refused(view.tree, `the tree of ${view.key}`);
  return `<section class="instance state-${view.state}" data-instance="${escapeHtml(view.key)}" data-state="${view.state}">
<h4><span class="dot"></span>${escapeHtml(view.key)} <span class="state">${escapeHtml(view.stateText)}</span> <span class="muted">${escapeHtml(view.age)}</span></h4>
${conditions(view.conditions)}
${tree}
</section>`;
}

function rgd(view: RgdView): string {
  const picture =
    view.graphUrl === undefined
      ? ""
      : `<img class="graph" alt="graph of ${escapeHtml(view.name)}" src="${escapeHtml(view.graphUrl)}">`;
  const compile =
    view.compileError === undefined ? "" : `<p class="error-message">no graph: ${escapeHtml(view.compileError)}</p>`;
  const instances = view.instances.ok
    ? view.instances.value.length === 0
      ? `<p class="muted">no instances (${escapeHtml(view.scope)})</p>`
      : `<p class="muted">instances in ${escapeHtml(view.scope)}</p>${view.instances.value.map(instance).join("\n")}`
    : refused(view.instances, `instances of ${view.kind} (${view.scope})`);
  return `<article class="rgd state-${view.state}" data-rgd="${escapeHtml(view.name)}" data-state="${view.state}">
<h3><span class="dot"></span>${escapeHtml(view.name)} <span class="state">${escapeHtml(view.stateText)}</span> <span class="muted">${escapeHtml(view.kind)} · ${escapeHtml(view.age)}</span></h3>
<div class="rgd-body"><div class="rgd-status">${conditions(view.conditions)}${compile}</div>${picture}</div>
${instances}
</article>`;
}

function events(list: readonly EventView[]): string {
  if (list.length === 0) return `<p class="muted">no recent events</p>`;
  const rows = list.map(
    (e) =>
      `<tr class="event-${e.type === "Warning" ? "warning" : "normal"}"><td>${escapeHtml(e.age)}</td><td>${escapeHtml(e.type)}</td><td>${escapeHtml(e.reason)}</td><td>${escapeHtml(e.object)}</td><td class="message">${escapeHtml(e.message)}</td></tr>`,
  );
  return `<table class="events"><thead><tr><th>age</th><th>type</th><th>reason</th><th>object</th><th>message</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export function renderView(view: UiView): string {
  const rgds = view.rgds.ok
    ? view.rgds.value.length === 0
      ? `<p class="muted">no ResourceGraphDefinitions</p>`
      : view.rgds.value.map(rgd).join("\n")
    : refused(view.rgds, "ResourceGraphDefinitions");
  const recent = view.events.ok ? events(view.events.value) : refused(view.events, "Events");
  return `<p class="context">${escapeHtml(view.server)}</p>
<h2>ResourceGraphDefinitions</h2>
<div id="rgds">${rgds}</div>
<h2>Recent events</h2>
<div id="events">${recent}</div>`;
}
