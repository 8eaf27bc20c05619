/**
 * The page shell, its stylesheet and its script, served by the view's own server (no CDN, no framework:
 * it works offline). The script only re-fetches the server-rendered fragment (`view`) every
 * refresh interval and swaps it in; no inline script or style, so the Content-Security-Policy can
 * forbid both.
 */
import { MAX_DRAWN_DEPTH, escapeHtml } from "./view-html.js";

export function pageShell(fragment: string, refreshMs: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kro ui</title>
<link rel="stylesheet" href="app.css">
<script src="app.js" defer></script>
</head>
<body data-refresh-ms="${String(refreshMs)}">
<header><h1>kro</h1><span class="muted">read-only view · <span id="updated">loaded</span></span></header>
<main id="view">${fragment}</main>
</body>
</html>
`;
}

export const PAGE_SCRIPT = `"use strict";
(function () {
  var every = Number(document.body.getAttribute("data-refresh-ms")) || 2000;
  var view = document.getElementById("view");
  var updated = document.getElementById("updated");
  var busy = false;
  function refresh() {
    if (busy) return;
    busy = true;
    // The page's own query (e.g. ?namespace=) is the fragment's too.
    fetch("view" + window.location.search, { cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
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

export const PAGE_STYLE = `:root { --ready: #1a7f37; --waiting: #9a6700; --pending: #57606a; --error: #cf222e; --excluded: #8c959f; --deleting: #8250df;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
body { margin: 0; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .6rem 1.2rem; background: #24292f; color: #fff; }
header h1 { margin: 0; font-size: 1.2rem; }
header .muted { color: #d0d7de; }
main { padding: .5rem 1.2rem 2rem; }
h2 { font-size: 1.05rem; margin: 1.2rem 0 .5rem; }
h3, h4 { margin: .2rem 0 .4rem; font-size: 1rem; }
.muted { color: #57606a; font-weight: normal; font-size: .9em; }
.context { color: #57606a; font-size: .85rem; }
article.rgd { background: #fff; border: 1px solid #d0d7de; border-left: 5px solid var(--pending); border-radius: 6px; padding: .6rem .9rem; margin-bottom: .9rem; }
.rgd-body { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.rgd-status { flex: 1 1 24rem; }
img.graph { max-width: 28rem; max-height: 18rem; background: #fff; border: 1px solid #eaeef2; border-radius: 4px; }
section.instance { border-top: 1px solid #eaeef2; padding: .4rem 0 .4rem .6rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .2rem 0 .4rem; }
th, td { text-align: left; padding: .1rem .6rem .1rem 0; vertical-align: top; }
th { color: #57606a; font-weight: 600; }
td.message { max-width: 48rem; word-break: break-word; }
tr.cond-false td, tr.event-warning td { color: var(--error); }
ul.tree { list-style: none; margin: .2rem 0; padding: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .82rem; }
li.node { padding: .1rem 0; }
${Array.from({ length: MAX_DRAWN_DEPTH + 1 }, (_, d) => `li.depth-${String(d)} { padding-left: ${String(d * 1.4)}rem; }`).join("\n")}
.dot { display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; margin-right: .4rem; background: var(--pending); vertical-align: baseline; }
.state { font-weight: 600; }
.reason { color: #57606a; }
.state-ready > .dot, .state-ready > h3 > .dot, .state-ready > h4 > .dot { background: var(--ready); }
.state-ready > .state, .state-ready > h3 > .state, .state-ready > h4 > .state { color: var(--ready); }
.state-waiting-readiness > .dot { background: var(--waiting); }
.state-waiting-readiness > .state, .state-not-ready > h4 > .state, .state-not-ready > h3 > .state { color: var(--waiting); }
.state-not-ready > h4 > .dot, .state-not-ready > h3 > .dot { background: var(--waiting); }
.state-waiting-dependency > .dot { background: var(--pending); }
.state-excluded > .dot { background: var(--excluded); }
.state-excluded { color: var(--excluded); }
.state-deleting > .dot { background: var(--deleting); }
.state-error > .dot, .state-error > h3 > .dot, .state-error > h4 > .dot { background: var(--error); }
.state-error > .state, .state-error > .reason, .state-error > h3 > .state, .state-error > h4 > .state { color: var(--error); }
article.state-ready { border-left-color: var(--ready); }
article.state-error { border-left-color: var(--error); }
article.state-not-ready { border-left-color: var(--waiting); }
.error-message { color: var(--error); }
.refused { color: #57606a; background: #fff8c5; border: 1px solid #d4a72c; border-radius: 4px; padding: .3rem .6rem; }
`;

/** A refusal page for requests that are not for this server (a rebinding site naming another Host). */
export const wrongHostPage = (host: string): string =>
  `<!doctype html><title>kro ui</title><p>kro ui does not answer for host ${escapeHtml(host)}.</p>`;
