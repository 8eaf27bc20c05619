/**
 * kubectl columns of a generated CRD. Author columns replace kro's defaults entirely (they are
 * not merged), matching kro: an RGD that lists one column gets exactly that column. The defaults and
 * their descriptions are kro's (pkg/graph/crd/defaults.go, defaultAdditionalPrinterColumns).
 */
import type { PrinterColumn } from "./openapi-types.js";

export const DEFAULT_PRINTER_COLUMNS: readonly Readonly<PrinterColumn>[] = [
  {
    name: "State",
    type: "string",
    description: "The state of a ResourceGraphDefinition instance",
    jsonPath: ".status.state",
  },
  {
    name: "Ready",
    type: "string",
    description: "Whether a ResourceGraphDefinition instance is ready",
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  },
  { name: "Age", type: "date", description: "Age of the resource", jsonPath: ".metadata.creationTimestamp" },
];

export function printerColumnsFor(custom: readonly PrinterColumn[] | undefined): PrinterColumn[] {
  const chosen = custom !== undefined && custom.length > 0 ? custom : DEFAULT_PRINTER_COLUMNS;
  return chosen.map((column) => ({ ...column }));
}
