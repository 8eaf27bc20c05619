/**
 * The HTML every page of the view shares: escaping (names, messages and expressions are a
 * tenant's input), a refused read said once, condition and Event tables, and numbers as people
 * read them. Pages carry stable hooks (`data-rgd`, `data-instance`, `data-state`, `data-refused`)
 * so a browser test reads what a person sees. Pure.
 */
import type { ConditionView, EventView, Read } from "./view-model.js";

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** 1000 → "1,000": counts at the scale the overview is for. */
export const count = (n: number): string => n.toLocaleString("en-US");

/** A read that did not happen: "not permitted" (RBAC said no) is worded apart from other failures. */
export function refused(read: Read<unknown> & { ok: false }, what: string): string {
  const label = read.notPermitted ? "not permitted" : "could not read";
  return `<p class="refused${read.notPermitted ? " not-permitted" : ""}" data-refused="${escapeHtml(what)}"><strong>${label}:</strong> ${escapeHtml(what)} — ${escapeHtml(read.message)}</p>`;
}

export function conditionsTable(list: readonly ConditionView[]): string {
  if (list.length === 0) return `<p class="muted">no conditions yet</p>`;
  const rows = list.map(
    (c) =>
      `<tr class="cond-${c.status === "True" ? "true" : c.status === "False" ? "false" : "unknown"}"><td>${escapeHtml(c.type)}</td><td>${escapeHtml(c.status)}</td><td>${escapeHtml(c.reason)}</td><td class="message">${escapeHtml(c.message)}</td></tr>`,
  );
  return `<table class="conditions"><thead><tr><th>condition</th><th>status</th><th>reason</th><th>message</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** `about`: the object every Event is about (an instance's page), so its column is left out rather than repeated. */
export function eventsTable(read: Read<readonly EventView[]>, what: string, about?: string): string {
  if (!read.ok) return refused(read, what);
  if (read.value.length === 0) return `<p class="muted">no events</p>`;
  const objectColumn = about === undefined || read.value.some((e) => e.object !== about);
  const rows = read.value.map(
    (e) =>
      `<tr class="event-${e.type === "Warning" ? "warning" : "normal"}"><td>${escapeHtml(e.age)}</td><td>${escapeHtml(e.type)}</td><td>${escapeHtml(e.reason)}${e.count > 1 ? ` <span class="muted">×${count(e.count)}</span>` : ""}</td>${objectColumn ? `<td>${escapeHtml(e.object)}</td>` : ""}<td class="message">${escapeHtml(e.message)}</td></tr>`,
  );
  return `<table class="events"><thead><tr><th>age</th><th>type</th><th>reason</th>${objectColumn ? "<th>object</th>" : ""}<th>message</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export const contextLine = (server: string): string => `<p class="context">${escapeHtml(server)}</p>`;
