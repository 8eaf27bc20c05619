-- Argo CD health check for kro-ts instances (any kind an RGD serves). Install it in argocd-cm as
-- resource.customizations.health.<group>_<Kind> (e.g. kro.run_WebApp), or once for every kind of
-- a group under resource.customizations with a wildcard key "kro.run/*" (docs/gitops.md).
-- It reads what the controller writes (kstatus conventions): status.observedGeneration, the
-- Stalled and Reconciling conditions, and the root Ready condition for the current generation.
-- Tested with a Lua interpreter against real instance statuses (test/integration/gitops-health.test.ts).
local hs = { status = "Progressing", message = "waiting for the kro controller to report status" }
if obj.status == nil then
  return hs
end
local generation = nil
if obj.metadata ~= nil then
  generation = obj.metadata.generation
end
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.message = "the controller has not observed generation " .. tostring(generation) .. " yet (status is for " .. tostring(observed) .. ")"
  return hs
end
local ready, stalled, reconciling = nil, nil, nil
if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    if condition.type == "Ready" then ready = condition end
    if condition.type == "Stalled" then stalled = condition end
    if condition.type == "Reconciling" then reconciling = condition end
  end
end
if stalled ~= nil and stalled.status == "True" then
  if stalled.reason == "ReconciliationSuspended" then
    hs.status = "Suspended"
  else
    hs.status = "Degraded"
  end
  hs.message = stalled.message or stalled.reason or ""
  return hs
end
if ready ~= nil and ready.status == "True" and (ready.observedGeneration == nil or generation == nil or ready.observedGeneration >= generation) then
  hs.status = "Healthy"
  hs.message = ready.message or ""
  return hs
end
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = reconciling.message or reconciling.reason or ""
  return hs
end
if ready ~= nil then
  hs.message = ready.message or ready.reason or ""
  if obj.status.state == "ERROR" then
    hs.status = "Degraded"
  end
end
return hs
