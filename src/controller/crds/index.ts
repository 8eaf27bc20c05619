/**
 * crds: installing CustomResourceDefinitions — an RGD's generated CRD (with the breaking-change
 * gate), the controller's own CRDs, and status storage on a template-dialect user's CRD. Never
 * touches instances.
 */
export { controllerCrdsInstalled, installControllerCrds } from "./controller-crds.js";
export { CRD_TYPE, crdRef, installCrd, isEstablished } from "./crd-installer.js";
export {
  allowsBreakingChanges,
  crdUpdateBody,
  judgeCrdUpdate,
  ownedCrd,
  type CrdDecision,
  type CrdOwner,
} from "./crd-gate.js";
export { attachUserCrd, type KindResult } from "./user-crd.js";
