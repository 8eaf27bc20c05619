/** The orchestrator of `kro import helm`: load the chart, infer the schema, build CRD + RGD + instance. */
import { HelmImportError, type ChartFiles, type HelmImportOptions, type HelmImportResult } from "./types.js";

export function importHelmChart(files: ChartFiles, options: HelmImportOptions = {}): HelmImportResult {
  if (options.kind === "") throw new HelmImportError("--kind must not be empty");
  if (!files.has("Chart.yaml")) throw new HelmImportError("not a Helm chart: Chart.yaml is missing", "Chart.yaml");
  throw new HelmImportError("not implemented yet");
}
