/**
 * readyWhen templates that match `helm install --wait` (pkg/kube/ready.go) per kind, over the
 * observed object `.self`: Deployments available with every replica updated, StatefulSets and
 * DaemonSets rolled out, Jobs complete (Helm's --wait-for-jobs), PVCs bound, Services with a
 * cluster IP (and a load-balancer address for type LoadBalancer), Pods ready, CRDs Established
 * (or refused a name: Helm goes on then too, since the conflict is not the wait's to report).
 * Other kinds are ready once they exist.
 */
const generationCurrent = `{{- $s := .self.status | default dict -}}{{- $gen := int64 (.self.metadata.generation | default 0) -}}{{- $seen := int64 ($s.observedGeneration | default 0) -}}`;
const wanted = `{{- $want := 1 -}}{{- if hasKey .self.spec "replicas" -}}{{- $want = int64 .self.spec.replicas -}}{{- end -}}`;
const conditionTrue = (type: string): string =>
  `{{- $ok := false -}}{{- range ($s.conditions | default list) -}}{{- if and (eq .type "${type}") (eq .status "True") -}}{{- $ok = true -}}{{- end -}}{{- end -}}`;

const READY_WHEN: Readonly<Record<string, string>> = {
  Deployment: `${generationCurrent}${wanted}${conditionTrue("Available")}{{- and $ok (ge $seen $gen) (ge (int64 ($s.updatedReplicas | default 0)) $want) -}}`,
  StatefulSet: `${generationCurrent}${wanted}{{- and (ge $seen $gen) (ge (int64 ($s.readyReplicas | default 0)) $want) (ge (int64 ($s.updatedReplicas | default 0)) $want) -}}`,
  DaemonSet: `${generationCurrent}{{- $n := int64 ($s.desiredNumberScheduled | default 0) -}}{{- and (ge $seen $gen) (ge (int64 ($s.numberReady | default 0)) $n) (ge (int64 ($s.updatedNumberScheduled | default 0)) $n) -}}`,
  Job: `{{- $s := .self.status | default dict -}}${conditionTrue("Complete")}{{- $ok -}}`,
  PersistentVolumeClaim: `{{- eq ((.self.status | default dict).phase | default "") "Bound" -}}`,
  Service: `{{- $t := .self.spec.type | default "ClusterIP" -}}{{- if eq $t "ExternalName" -}}true{{- else if not .self.spec.clusterIP -}}false{{- else if eq $t "LoadBalancer" -}}{{- if ((.self.status | default dict).loadBalancer | default dict).ingress -}}true{{- else -}}false{{- end -}}{{- else -}}true{{- end -}}`,
  Pod: `{{- $s := .self.status | default dict -}}${conditionTrue("Ready")}{{- $ok -}}`,
  CustomResourceDefinition: `{{- $s := .self.status | default dict -}}{{- $ok := false -}}{{- range ($s.conditions | default list) -}}{{- if or (and (eq .type "Established") (eq .status "True")) (and (eq .type "NamesAccepted") (eq .status "False")) -}}{{- $ok = true -}}{{- end -}}{{- end -}}{{- $ok -}}`,
};

/**
 * Whether objects of `kind` gate the kinds Helm creates after them (install-order.ts): those
 * ready once they exist do, and so do CRDs — a custom resource of the chart needs its CRD
 * Established, and nothing a CRD waits for depends on the rest of the chart.
 */
export function gatesLaterKinds(kind: string): boolean {
  return kind === "CustomResourceDefinition" || READY_WHEN[kind] === undefined;
}

/** The readyWhen templates for objects of `kind` (empty: ready once it exists). */
export function readyWhenFor(kind: string): string[] {
  const template = READY_WHEN[kind];
  return template === undefined ? [] : [template];
}
