// graph/helm: `spec.helm` of a template-dialect RGD — the chart context its `manifests` children
// render in (every template parsed, charts and subcharts, offline capabilities), its declared
// `lookup`s and the edges they add, compressed chart text, Helm's function names. A room of its own
// because CompiledGraph (at the root) carries its HelmContext; it builds only on the root's dag
// and is-record, and knows neither dialect's compile.
export { gzipText, MAX_INFLATED_ENTRY_BYTES, MAX_INFLATED_TOTAL_BYTES } from "./helm-compression.js";
export { HELM_FUNCTION_NAMES } from "./helm-function-names.js";
export {
  addLookupEdges,
  type HelmLookupSite,
  helmLookupSites,
  isDeclaredLookup,
  lookupOrderIssues,
} from "./helm-lookups.js";
export {
  chartOfTemplate,
  compileHelmContext,
  type HelmChartScope,
  type HelmContext,
  parseChartTemplate,
} from "./template-helm.js";
