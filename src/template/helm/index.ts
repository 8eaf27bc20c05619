/**
 * Helm 3's rendering engine over engine/: a chart's templates with their data (recAllTpls), the
 * typed objects .Files, .Capabilities and .Chart, and the functions Helm adds to Sprig. The top
 * room: it may use every sibling's door, and no sibling may import it.
 */
export { helmChartTemplates, type HelmChartInput, type HelmReleaseInput } from "./helm-chart-data.js";
export {
  helmParseOrder,
  renderHelmTemplates,
  type HelmLookup,
  type HelmRenderOptions,
  type HelmTemplate,
} from "./helm-engine.js";
export { helmFuncs } from "./helm-funcs.js";
export {
  globToRegExp,
  helmCapabilities,
  helmChart,
  helmFiles,
  parseKubeVersion,
  type HelmCapabilitiesInput,
} from "./helm-objects.js";
