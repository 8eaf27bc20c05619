/**
 * An imported Helm chart served by a test controller: the chart imported as `kro import helm`
 * would, its RGD labelled for this test's controller (so no other test controller serves it), the
 * CRD and RGD applied. Shared by the controller-helm-* integration tests.
 */
import { importHelmChart, type HelmImportOptions, type HelmImportResult } from "../../src/helm/index.js";
import type { TestController } from "./controller.js";
import { chartFiles } from "./helm-import.js";
import { kubectl } from "./test-cluster.js";

export interface InstalledChart {
  readonly imported: HelmImportResult;
  readonly rgdName: string;
  /** Deletes the RGD without waiting (its CRD and instances go with it). */
  remove(): Promise<void>;
}

export async function installImportedChart(
  tc: TestController,
  chartDir: string,
  options: HelmImportOptions,
): Promise<InstalledChart> {
  const imported = importHelmChart(await chartFiles(chartDir), { releaseName: "rel", ...options });
  const rgd = imported.rgd as { metadata: { name: string; labels?: Record<string, string> } };
  rgd.metadata = { ...rgd.metadata, labels: { ...rgd.metadata.labels, [tc.label.key]: tc.label.value } };
  await kubectl(["apply", "-f", "-"], JSON.stringify(imported.crd));
  await kubectl(["apply", "-f", "-"], JSON.stringify(rgd));
  const rgdName = rgd.metadata.name;
  return {
    imported,
    rgdName,
    remove: async () => {
      await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    },
  };
}
