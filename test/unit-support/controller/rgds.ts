/**
 * Small RGDs in the shapes of kro's examples, as the objects a user would apply: the "webapp"
 * (a Deployment, a Service reading it, an Ingress only when asked for) and a ConfigMap chain
 * (each reads the one before, so they form dependency waves a → b → c).
 */
import { ANNOTATIONS } from "../../../src/api/index.js";
import type { KubeObject } from "../../../src/kube/index.js";

export const KRO = "kro.run/v1alpha1";

export function rgd(name: string, spec: Record<string, unknown>, generation?: number): KubeObject {
  return {
    apiVersion: KRO,
    kind: "ResourceGraphDefinition",
    metadata: { name, ...(generation === undefined ? {} : { generation }) },
    spec,
  };
}

/** kro's webapp example, trimmed: `spec.ingress` switches the Ingress on. */
export function webappRgd(): KubeObject {
  return rgd("webapp", {
    schema: {
      apiVersion: "v1alpha1",
      kind: "WebApp",
      spec: {
        image: 'string | default="nginx:1.27"',
        replicas: "integer | default=1",
        ingress: "boolean | default=false",
      },
      status: { availableReplicas: "${deploy.status.?availableReplicas.orValue(0)}" },
    },
    resources: [
      {
        id: "deploy",
        template: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "${schema.metadata.name}" },
          spec: {
            replicas: "${schema.spec.replicas}",
            selector: { matchLabels: { app: "${schema.metadata.name}" } },
            template: {
              metadata: { labels: { app: "${schema.metadata.name}" } },
              spec: { containers: [{ name: "web", image: "${schema.spec.image}" }] },
            },
          },
        },
      },
      {
        id: "svc",
        template: {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "${deploy.metadata.name}" },
          spec: { selector: { app: "${schema.metadata.name}" }, ports: [{ port: 80 }] },
        },
      },
      {
        id: "ing",
        includeWhen: ["${schema.spec.ingress}"],
        template: {
          apiVersion: "networking.k8s.io/v1",
          kind: "Ingress",
          metadata: { name: "${svc.metadata.name}" },
          spec: {
            rules: [
              {
                http: {
                  paths: [
                    {
                      path: "/",
                      pathType: "Prefix",
                      backend: { service: { name: "${svc.metadata.name}", port: { number: 80 } } },
                    },
                  ],
                },
              },
            ],
          },
        },
      },
    ],
  });
}

/** Three ConfigMaps, each reading the one before: waves a, then b, then c. `spec.tail` keeps b (and so c). */
export function chainRgd(): KubeObject {
  const cm = (id: string, value: string, extra: Record<string, unknown> = {}) => ({
    id,
    ...extra,
    template: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `\${schema.metadata.name}-${id}` },
      data: { value },
    },
  });
  return rgd("chain", {
    schema: {
      apiVersion: "v1alpha1",
      kind: "Chain",
      spec: { value: 'string | default="v"', tail: "boolean | default=true" },
    },
    resources: [
      cm("a", "${schema.spec.value}"),
      cm("b", "${a.data.value}-b", { includeWhen: ["${schema.spec.tail}"] }),
      cm("c", "${b.data.value}-c"),
    ],
  });
}

export function instance(
  kind: string,
  name: string,
  spec: Record<string, unknown> = {},
  namespace = "default",
): KubeObject {
  // The RGDs here all serve kro.run/v1alpha1 (schema.apiVersion v1alpha1, kro's default group).
  return { apiVersion: KRO, kind, metadata: { name, namespace }, spec };
}

/** An instance `user` (member of `groups`) wrote: it carries the requester record the write gate asks about. */
export function requestedInstance(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  user: string,
  groups: readonly string[] = [],
): KubeObject {
  const object = instance(kind, name, spec);
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { [ANNOTATIONS.requestedBy]: user, [ANNOTATIONS.requestedGroups]: groups.join(",") },
    },
  };
}
