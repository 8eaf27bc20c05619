/**
 * What the instance reconcile may use of the controller: the trunk's port. Its steps take
 * narrower Picks of it (StatusWriter, Applier, ChildClients…); nothing here reaches the RGD
 * reconcile's parts (the conversion webhook, storage migrations, the RGD queue, compilation,
 * delegations).
 */
import type { ControllerContext } from "../context/index.js";

export type InstanceContext = Pick<
  ControllerContext,
  | "client"
  | "eventClient"
  | "clusters"
  | "logger"
  | "now"
  | "kroVersion"
  | "options"
  | "served"
  | "instanceLeases"
  | "instanceQueue"
  | "watches"
  | "cacheScoping"
  | "applyMemo"
  | "ownWrites"
  | "instanceMemory"
  | "authorPolicies"
  | "policySync"
  | "helmCluster"
  | "chartRenders"
  | "evaluations"
  | "evaluationGuard"
  | "testCrashOn"
  | "onInstanceEvaluated"
  | "controllerUser"
  | "accessReviews"
>;
