// conversion: an instance converted between the versions of its RGD's API, through the hub, as the
// RGD declares it (CEL over `self`, implicit identical fields, round-trip annotations).
// Pure: it neither serves the webhook (controller/conversion) nor reads a cluster.
export {
  apiOfGraph,
  ConversionError,
  convertObject,
  isConversionError,
  servedVersionNames,
  type ApiOfVersions,
  type VersionedObject,
} from "./converter.js";
