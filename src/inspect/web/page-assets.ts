/**
 * The page shell, its stylesheet and its script, served by the view's own server (no CDN, no framework:
 * it works offline). Every page is whole without script (links and a GET form); the script only
 * re-fetches the page's server-rendered fragment every refresh interval and swaps it in — not while
 * the person is in the filter form or has changed a field of it (checked again when the answer
 * arrives: a fetch in flight must not wipe what they typed since), nor while the tab is hidden. No inline script or
 * style, so the Content-Security-Policy can forbid both.
 */
import { MAX_DRAWN_DEPTH } from "./instance-html.js";
import type { RenderedPage } from "./page-routes.js";
import { escapeHtml } from "./view-html.js";

/** The fragment of the page at `search` (its own query, plus `fragment`): relative, so it names this page. */
export function fragmentUrl(search: URLSearchParams): string {
  const params = new URLSearchParams(search);
  params.set("fragment", "1");
  return `?${params.toString()}`;
}

export function pageShell(page: RenderedPage, refreshMs: number, fragment: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="stylesheet" href="${escapeHtml(page.root)}app.css">
<script src="${escapeHtml(page.root)}app.js" defer></script>
</head>
<body data-refresh-ms="${String(refreshMs)}" data-fragment="${escapeHtml(fragment)}">
<header><h1><a href="${escapeHtml(page.root)}">kro</a></h1><span class="muted">read-only view · <span id="updated">loaded</span></span></header>
<main id="view">${page.fragment}</main>
</body>
</html>
`;
}

export const PAGE_SCRIPT = `"use strict";
(function () {
  var every = Number(document.body.getAttribute("data-refresh-ms")) || 2000;
  var fragment = document.body.getAttribute("data-fragment") || "view";
  var view = document.getElementById("view");
  var updated = document.getElementById("updated");
  var busy = false;
  function typing() {
    var active = document.activeElement;
    return active !== null && active.closest("form") !== null;
  }
  // A field of a form changed from what the page was rendered with: a swap would throw it away.
  function edited() {
    var fields = view.querySelectorAll("form input, form select");
    for (var i = 0; i < fields.length; i++) {
      var field = fields[i];
      if (field.tagName === "SELECT") {
        for (var j = 0; j < field.options.length; j++)
          if (field.options[j].selected !== field.options[j].defaultSelected) return true;
      } else if (field.value !== field.defaultValue) return true;
    }
    return false;
  }
  function refresh() {
    if (busy || document.hidden || typing() || edited()) return;
    busy = true;
    fetch(fragment, { cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      // Asked before the person started on the form, answered after: keep what they wrote.
      if (typing() || edited()) return;
      view.innerHTML = html;
      updated.textContent = "updated " + new Date().toLocaleTimeString();
      updated.className = "";
    }).catch(function (error) {
      updated.textContent = "cannot refresh: " + error.message;
      updated.className = "error-message";
    }).then(function () { busy = false; });
  }
  setInterval(refresh, every);
})();
`;

const STATE_COLOURS = `.state-ready { --c: var(--ready); } .state-in-progress, .state-waiting-readiness, .state-not-ready { --c: var(--waiting); }
.state-waiting, .state-waiting-dependency { --c: var(--pending); } .state-error { --c: var(--error); }
.state-deleting { --c: var(--deleting); } .state-excluded { --c: var(--excluded); }
.dot { display: inline-block; width: .65rem; height: .65rem; border-radius: 50%; margin-right: .4rem; background: var(--c, var(--pending)); }
tr > td.state, h2 > .state, .count.state-error a { color: var(--c); font-weight: 600; }
tr.state-excluded td { color: var(--excluded); }`;

export const PAGE_STYLE = `:root { --ready: #1a7f37; --waiting: #9a6700; --pending: #57606a; --error: #cf222e; --excluded: #8c959f; --deleting: #8250df;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
body { margin: 0; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .5rem 1.2rem; background: #24292f; color: #fff; }
header h1 { margin: 0; font-size: 1.15rem; } header h1 a { color: #fff; }
header .muted { color: #d0d7de; }
main { padding: .4rem 1.2rem 2rem; max-width: 90rem; }
h2 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
h3 { margin: 1rem 0 .3rem; font-size: .95rem; }
.muted { color: #57606a; font-weight: normal; font-size: .9em; }
.context, .crumbs { color: #57606a; font-size: .85rem; margin: .3rem 0; }
form.filter { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem .8rem; font-size: .85rem; margin: .4rem 0; }
form.filter input, form.filter select, form.filter button { font: inherit; }
table { border-collapse: collapse; font-size: .85rem; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; margin: .2rem 0 .4rem; }
th, td { text-align: left; padding: .25rem .7rem; vertical-align: top; border-bottom: 1px solid #eaeef2; }
th { color: #57606a; font-weight: 600; background: #f6f8fa; }
th.count, td.count { text-align: right; font-variant-numeric: tabular-nums; }
td.count.zero { color: #afb8c1; }
table.instances, table.children, table.rgds { width: 100%; }
table.children td:not(.reason), table.instances td:not(.reason), table.rgds td { white-space: nowrap; }
td.reason, td.message { color: #57606a; max-width: 40rem; word-break: break-word; }
tr.state-error td.reason, tr.cond-false td, tr.event-warning td { color: var(--error); }
.pager { font-size: .85rem; margin: .3rem 0; } .pager .where { font-weight: 600; }
.split { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.split .side { flex: 1 1 26rem; }
img.graph { max-width: 36rem; max-height: 24rem; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; }
${STATE_COLOURS}
${Array.from({ length: MAX_DRAWN_DEPTH + 1 }, (_, d) => `td.depth-${String(d)} { padding-left: ${String(0.7 + d * 1.4)}rem; }`).join("\n")}
.error-message { color: var(--error); }
.refused { color: #57606a; background: #fff8c5; border: 1px solid #d4a72c; border-radius: 4px; padding: .3rem .6rem; }
td .refused { margin: 0; }
`;

/** A refusal page for requests that are not for this server (a rebinding site naming another Host). */
export const wrongHostPage = (host: string): string =>
  `<!doctype html><title>kro ui</title><p>kro ui does not answer for host ${escapeHtml(host)}.</p>`;
