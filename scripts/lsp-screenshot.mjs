// The README's picture of `kro lsp` in an editor, taken from a real one: Neovim (configured with
// the README's 0.7 snippet) runs in a tmux pane against the built CLI; once the server's
// diagnostics are on screen, omni completion is opened inside a `${…}`; tmux's copy of the screen,
// colours included, is drawn as HTML in headless Chromium and saved as a PNG. Nothing on it is
// drawn by this script but the cells tmux reports.
// Needs `npm run build`, nvim, tmux and chromium (KRO_TEST_NVIM / KRO_TEST_CHROMIUM override).
// Usage: node scripts/lsp-screenshot.mjs [--out docs/images/kro-lsp-neovim.png]
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { out: { type: "string" } } });
const out = path.resolve(values.out ?? path.join(root, "docs/images/kro-lsp-neovim.png"));
const NVIM = process.env.KRO_TEST_NVIM ?? "nvim";
const CHROMIUM = process.env.KRO_TEST_CHROMIUM ?? "/usr/bin/chromium";
const [COLUMNS, ROWS] = [164, 32];

const dir = mkdtempSync(path.join(tmpdir(), "kro-lsp-shot-"));
// A tmux server of its own (socket in `dir`): nobody else's sessions are touched.
const tmux = (...args) => execFileSync("tmux", ["-S", path.join(dir, "tmux.sock"), ...args], { encoding: "utf8" });

function waitForScreen(what, test) {
  for (let tries = 0; tries < 600; tries++) {
    const screen = tmux("capture-pane", "-p", "-t", "shot");
    if (test(screen)) return;
    execFileSync("sleep", ["0.1"]);
  }
  throw new Error(`the screen never showed ${what}:\n${tmux("capture-pane", "-p", "-t", "shot")}`);
}

try {
  const seed = readFileSync(path.join(root, "test/data/lsp/webapp-rgd.yaml"), "utf8");
  const file = path.join(dir, "webapp-rgd.yaml");
  writeFileSync(
    file,
    seed
      .replace("${schema.spec.replicas}", "${schema.spec.replica}")
      .replace("${deploy.metadata.name}-", "${depoy.metadata.name}-"),
  );
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const snippet = /\*\*Neovim\*\* 0\.7 and later[^\n]*\n\n```lua\n([\s\S]*?)```/.exec(readme)?.[1];
  if (snippet === undefined) throw new Error("the README has no Neovim 0.7 snippet");
  writeFileSync(
    path.join(dir, "init.lua"),
    `${snippet}
vim.o.termguicolors = true
vim.cmd("colorscheme desert")
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.completeopt = "menuone,noinsert"
vim.o.omnifunc = "v:lua.vim.lsp.omnifunc"
vim.cmd("highlight SignColumn guibg=NONE")
vim.cmd("highlight Pmenu guibg=#4e4e4e guifg=#e4e4e4")
vim.cmd("highlight PmenuSel guibg=#87875f guifg=#ffffff")
`,
  );
  mkdirSync(path.join(dir, "bin"));
  writeFileSync(
    path.join(dir, "bin/kro"),
    `#!/bin/sh\nexec '${process.execPath}' '${path.join(root, "dist/src/cli/main.js")}' "$@"\n`,
  );
  chmodSync(path.join(dir, "bin/kro"), 0o755);
  const xdg = path.join(dir, "xdg");
  const env = [
    `PATH='${path.join(dir, "bin")}:${process.env.PATH}'`,
    ...["CONFIG", "DATA", "STATE", "CACHE"].map((kind) => `XDG_${kind}_HOME='${xdg}'`),
    "TERM=xterm-256color",
  ].join(" ");
  tmux("-f", "/dev/null", "new-session", "-d", "-c", dir, "-x", `${COLUMNS}`, "-y", `${ROWS}`, "-s", "shot");
  tmux("set-option", "-t", "shot", "status", "off");
  tmux(
    "send-keys",
    "-t",
    "shot",
    `${env} ${NVIM} -n -u '${path.join(dir, "init.lua")}' ${path.basename(file)}`,
    "Enter",
  );
  waitForScreen("the diagnostics", (s) => s.includes("No such key: replica"));
  // Line 16 at the top, so both diagnostics and the menu fit; then the cursor right after
  // `${schema.spec.` of line 37 (the second dot), insert mode, and omni completion.
  tmux("send-keys", "-t", "shot", ":16", "Enter", "zt", ":37", "Enter", "0f.;a", "C-x", "C-o");
  waitForScreen("the completion menu", (s) => /replicas\s+Field integer/.test(s));
  const screen = tmux("capture-pane", "-p", "-e", "-t", "shot");
  tmux("kill-server");

  const html = `<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: #333; }
pre { margin: 0; padding: 8px; font: 15px/1.3 "DejaVu Sans Mono", monospace; color: #fff; background: #333;
  display: inline-block; }
</style><pre id="screen">${ansiToHtml(screen)}</pre>`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1800, height: 900 } });
    await page.setContent(html);
    mkdirSync(path.dirname(out), { recursive: true });
    await page.locator("#screen").screenshot({ path: out });
  } finally {
    await browser.close();
  }
  console.log(`wrote ${path.relative(root, out)}`);
} finally {
  try {
    tmux("kill-server");
  } catch {
    // already stopped
  }
  rmSync(dir, { recursive: true, force: true });
}

/** tmux's escape sequences (SGR only) as spans with inline styles. */
function ansiToHtml(text) {
  const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const palette = (n) => {
    const basic = ["#000", "#c00", "#0c0", "#cc0", "#00c", "#c0c", "#0cc", "#ccc"];
    const bright = ["#555", "#f55", "#5f5", "#ff5", "#55f", "#f5f", "#5ff", "#fff"];
    if (n < 8) return basic[n];
    if (n < 16) return bright[n - 8];
    if (n < 232) {
      const [r, g, b] = [Math.floor((n - 16) / 36), Math.floor((n - 16) / 6) % 6, (n - 16) % 6].map((v) =>
        v === 0 ? 0 : 55 + v * 40,
      );
      return `rgb(${r},${g},${b})`;
    }
    const grey = 8 + (n - 232) * 10;
    return `rgb(${grey},${grey},${grey})`;
  };
  let style = {};
  let html = "";
  // The escape character, built so that the pattern holds no control character itself.
  const sgr = new RegExp(`${String.fromCharCode(27)}\\[([0-9;:]*)m`);
  for (const [index, part] of text.split(sgr).entries()) {
    if (index % 2 === 0) {
      if (part === "") continue;
      const fg = style.reverse ? (style.bg ?? "#333") : style.fg;
      const bg = style.reverse ? (style.fg ?? "#fff") : style.bg;
      const css = [
        fg && `color:${fg}`,
        bg && `background:${bg}`,
        style.bold && "font-weight:bold",
        style.italic && "font-style:italic",
        style.underline && "text-decoration:underline",
      ].filter(Boolean);
      html += css.length > 0 ? `<span style="${css.join(";")}">${escape(part)}</span>` : escape(part);
      continue;
    }
    const codes = part === "" ? ["0"] : part.split(";");
    for (let i = 0; i < codes.length; i++) {
      const code = String(codes[i]);
      const n = Number(code.split(":")[0]);
      if (n === 0) style = {};
      else if (n === 1) style.bold = true;
      else if (n === 3) style.italic = true;
      else if (n === 4) style.underline = code !== "4:0";
      else if (n === 7) style.reverse = true;
      else if (n === 22) style.bold = false;
      else if (n === 23) style.italic = false;
      else if (n === 24) style.underline = false;
      else if (n === 27) style.reverse = false;
      else if (n >= 30 && n <= 37) style.fg = palette(n - 30);
      else if (n >= 90 && n <= 97) style.fg = palette(n - 82);
      else if (n >= 40 && n <= 47) style.bg = palette(n - 40);
      else if (n >= 100 && n <= 107) style.bg = palette(n - 92);
      else if (n === 39) delete style.fg;
      else if (n === 49) delete style.bg;
      else if (n === 38 || n === 48 || n === 58) {
        const key = n === 38 ? "fg" : n === 48 ? "bg" : undefined;
        const mode = Number(codes[i + 1]);
        const colour =
          mode === 2
            ? `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`
            : mode === 5
              ? palette(Number(codes[i + 2]))
              : undefined;
        i += mode === 2 ? 4 : 2;
        if (key !== undefined && colour !== undefined) style[key] = colour;
      }
    }
  }
  return html;
}
