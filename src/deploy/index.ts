// deploy: the Helm chart (charts/kro-ts) rendered without helm, and the files generated from it
// (deploy/kro-controller.yaml, the chart's CRD). Build-time tooling; the controller never uses it.
export { ChartRenderError, renderChart, type ChartFile, type ChartSource, type RenderChartOptions, type RenderedChart } from "./helm-render.js";
export { CHART_CRD_PATH, CHART_DIR, CHART_GRAPH_REVISION_CRD_PATH, MANIFEST_PATH, MANIFEST_RELEASE, chartCrdFile, controllerManifest, controllerNamespace, generateDeployFiles, sortForInstall } from "./manifest.js";
export { REPO_ROOT, loadChart } from "./chart-files.js";
export { expectedDeployFiles, staleDeployFiles } from "./generate.js";
