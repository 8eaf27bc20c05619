// kro import helm reads a chart only within Helm's own size limits, checked before anything is read.
import assert from "node:assert/strict";
import { mkdtemp, open, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { CHART_LIMITS } from "../../helm/index.js";
import { readChartFiles } from "./chart-files.js";

/** A sparse file of `size` bytes: no disk or memory is spent on it. */
async function sparse(file: string, size: number): Promise<void> {
  const handle = await open(file, "w");
  await handle.truncate(size);
  await handle.close();
}

describe("chart files within Helm's limits", () => {
  it("names a chart file over Helm's per-file limit, and a chart over the whole-chart limit", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-chart-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, "Chart.yaml"), "apiVersion: v2\nname: c\nversion: 0.1.0\n");
    await mkdir(path.join(dir, "templates"));
    await sparse(path.join(dir, "templates", "huge.yaml"), CHART_LIMITS.fileBytes + 1);
    await assert.rejects(
      readChartFiles(dir),
      /chart file .*templates\/huge\.yaml is 5 MiB, larger than the 5 MiB Helm allows/,
    );

    await rm(path.join(dir, "templates", "huge.yaml"));
    for (let i = 0; i * CHART_LIMITS.fileBytes <= CHART_LIMITS.chartBytes; i++)
      await sparse(path.join(dir, "templates", `part-${i}.yaml`), CHART_LIMITS.fileBytes);
    await assert.rejects(readChartFiles(dir), /larger than the 100 MiB Helm allows for a whole chart/);

    const archive = path.join(dir, "big.tgz");
    await sparse(archive, CHART_LIMITS.chartBytes + 1);
    await assert.rejects(readChartFiles(archive), /chart archive .*big\.tgz is 100 MiB, larger than the 100 MiB/);
  });

  it("reads a chart within the limits", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-chart-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, "Chart.yaml"), "apiVersion: v2\nname: c\nversion: 0.1.0\n");
    assert.deepEqual([...(await readChartFiles(dir)).keys()], ["Chart.yaml"]);
  });
});
