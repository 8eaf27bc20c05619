// docs/architecture.md draws the rooms as they are: every folder under src/ is named in it (as
// `src/<path>/`), and it names no folder that does not exist. A move that forgets the picture
// fails here instead of leaving a newcomer a wrong map.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function foldersUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const child = `${dir}/${entry.name}`;
    found.push(`${child}/`, ...foldersUnder(child));
  }
  return found;
}

/** Every `src/…/` path the document names, in backticks. */
export function foldersNamedIn(markdown: string): string[] {
  return [...markdown.matchAll(/`(src\/[A-Za-z0-9_./-]*\/)`/g)].map((m) => m[1] as string);
}

describe("docs/architecture.md", () => {
  const named = new Set(foldersNamedIn(readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8")));
  const actual = new Set(foldersUnder("src"));

  it("names every folder under src/", () => {
    const missing = [...actual].filter((folder) => !named.has(folder)).sort();
    assert.deepEqual(missing, [], `folders missing from docs/architecture.md: ${missing.join(", ")}`);
  });

  it("names no folder that does not exist", () => {
    const stale = [...named].filter((folder) => !actual.has(folder)).sort();
    assert.deepEqual(stale, [], `docs/architecture.md names folders that do not exist: ${stale.join(", ")}`);
  });

  it("reads folder names the way the document writes them", () => {
    assert.deepEqual(foldersNamedIn("the `src/controller/instance/` room and `src/api/`, not src/x/"), [
      "src/controller/instance/",
      "src/api/",
    ]);
  });
});
