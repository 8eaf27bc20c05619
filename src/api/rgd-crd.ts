/**
 * The ResourceGraphDefinition CRD the controller installs (and deploy/ ships), generated from
 * this one source. Descriptions are on every field so `kubectl explain rgd.spec.resources`
 * reads well; admission rules follow kro v0.9 (docs/reference/kro-reference.md §2.1) plus the
 * dialect rule.
 */
import { KRO_GROUP, KRO_VERSION, RGD } from "./constants.js";

/** The part of an OpenAPI v3 schema this file writes, with the x-kubernetes-* keys spelled as on the wire. */
export interface JSONSchemaProps {
  type?: string;
  description?: string;
  format?: string;
  pattern?: string;
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-validations"?: { rule: string; message: string }[];
}

/** A CustomResourceDefinition as plain JSON (kubernetes-types spells the x-kubernetes-* keys differently). */
export interface CrdManifest {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

const freeForm = (description: string): JSONSchemaProps => ({
  type: "object",
  description,
  "x-kubernetes-preserve-unknown-fields": true,
});
const str = (description: string, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: "string",
  description,
  ...extra,
});
const immutable = (what: string) => [{ rule: "self == oldSelf", message: `${what} is immutable` }];
const NAME_LIST_ITEM: JSONSchemaProps = { type: "string", maxLength: 63, pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$" };
const nameList = (description: string): JSONSchemaProps => ({
  type: "array",
  description,
  maxItems: 32,
  items: NAME_LIST_ITEM,
  "x-kubernetes-list-type": "set",
});
const stringList = (description: string): JSONSchemaProps => ({
  type: "array",
  description,
  items: { type: "string" },
});

const schemaSpec: JSONSchemaProps = {
  type: "object",
  description: "CEL dialect: the API this RGD defines. kro-ts generates and installs a CRD from it.",
  required: ["apiVersion", "kind"],
  properties: {
    apiVersion: str("Version of the generated API, e.g. v1alpha1.", {
      pattern: "^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$",
      "x-kubernetes-validations": immutable("apiVersion"),
    }),
    kind: str("Kind of the generated API, UpperCamelCase, e.g. WebApp.", {
      pattern: "^[A-Z][a-zA-Z0-9]{0,62}$",
      "x-kubernetes-validations": immutable("kind"),
    }),
    group: str("API group of the generated API.", {
      default: KRO_GROUP,
      "x-kubernetes-validations": immutable("group"),
    }),
    scope: str("Whether instances are namespaced or cluster-scoped.", {
      enum: ["Namespaced", "Cluster"],
      default: "Namespaced",
      "x-kubernetes-validations": immutable("scope"),
    }),
    spec: freeForm(
      'SimpleSchema of the instance spec: field name → "type | marker=value ...", nested objects, arrays and maps.',
    ),
    types: freeForm("Reusable custom types (name → SimpleSchema) that spec and other types may refer to."),
    status: freeForm(
      "Status fields of the instance, each a ${...} CEL expression over the resources; optional `conditions` list.",
    ),
    additionalPrinterColumns: {
      type: "array",
      description: "kubectl columns for the generated API; when set, replaces the default columns.",
      items: freeForm("A CustomResourceColumnDefinition, passed to the CRD unchanged."),
    },
    shortNames: nameList("Short names of the generated API (kubectl get <shortName>)."),
    categories: nameList("Categories of the generated API (kubectl get <category>)."),
    deprecated: {
      type: "boolean",
      description: "Marks the hub version (apiVersion) deprecated; kubectl prints deprecationWarning.",
    },
    deprecationWarning: str("Warning kubectl prints for requests to the deprecated hub version.", { maxLength: 256 }),
    versions: {
      type: "array",
      description:
        "Further versions of the API beside the hub (apiVersion, which the resources read), each with its own SimpleSchema and a conversion to and from the hub (docs/design/api-versions.md).",
      maxItems: 16,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name"],
        properties: {
          name: str("Version name, e.g. v1beta1.", { pattern: "^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$" }),
          served: { type: "boolean", description: "Whether the API server serves this version (default true)." },
          storage: {
            type: "boolean",
            description: "Objects are stored at this version (at most one; default: the hub).",
          },
          deprecated: { type: "boolean", description: "Marks the version deprecated." },
          deprecationWarning: str("Warning kubectl prints for requests to this deprecated version.", {
            maxLength: 256,
          }),
          spec: freeForm("SimpleSchema of this version's spec."),
          types: freeForm("Custom types of this version (the hub's types are visible too)."),
          conversion: {
            type: "object",
            description:
              "How objects of this version convert to and from the hub; fields with the same path and type convert implicitly.",
            properties: {
              toHub: freeForm(
                "A partial hub object whose fields are ${...} expressions over self (the object at this version).",
              ),
              fromHub: freeForm(
                "A partial object of this version whose fields are ${...} expressions over self (the hub object).",
              ),
              roundTrip: {
                type: "object",
                description:
                  "Fields a direction drops on purpose, kept in an annotation so converting back restores them.",
                properties: {
                  version: stringList("Fields of this version the hub cannot hold, e.g. spec.canary."),
                  hub: stringList("Fields of the hub this version cannot hold."),
                },
              },
            },
          },
        },
      },
    },
    metadata: {
      type: "object",
      description: "Labels and annotations copied onto the generated CRD.",
      properties: {
        labels: {
          type: "object",
          description: "Labels for the generated CRD.",
          additionalProperties: { type: "string" },
        },
        annotations: {
          type: "object",
          description: "Annotations for the generated CRD.",
          additionalProperties: { type: "string" },
        },
      },
    },
  },
};

const externalRef: JSONSchemaProps = {
  type: "object",
  description: "A read-only reference to an object the RGD does not manage: by name, or a collection by selector.",
  required: ["apiVersion", "kind", "metadata"],
  properties: {
    apiVersion: str("apiVersion of the referenced object."),
    kind: str("kind of the referenced object."),
    metadata: {
      type: "object",
      description: "Which object(s): exactly one of name or selector.",
      "x-kubernetes-validations": [
        { rule: "has(self.name) != has(self.selector)", message: "exactly one of name or selector must be provided" },
      ],
      properties: {
        name: str("Name of the referenced object (may contain ${...}).", { minLength: 1 }),
        namespace: str("Namespace of the referenced object; defaults to the instance's namespace."),
        selector: freeForm("Label selector (matchLabels / matchExpressions) that makes this an external collection."),
      },
    },
  },
};

const resource: JSONSchemaProps = {
  type: "object",
  description: "One node of the resource graph: a template to create, or an external reference to read.",
  required: ["id"],
  "x-kubernetes-validations": [
    {
      rule: "has(self.template) != has(self.externalRef)",
      message: "exactly one of template or externalRef must be provided",
    },
  ],
  properties: {
    id: str("Unique lowerCamelCase identifier; other expressions refer to this resource by it.", {
      pattern: "^[a-z][a-zA-Z0-9]*$",
      maxLength: 63,
    }),
    template: freeForm(
      "A full Kubernetes object (apiVersion, kind, metadata, ...); string values may contain ${...} expressions.",
    ),
    externalRef,
    readyWhen: stringList(
      "Boolean ${...} expressions over this resource (or `each` item); all must be true for it to be ready.",
    ),
    includeWhen: stringList(
      "Boolean ${...} expressions; when any is false the resource and its dependents are not created.",
    ),
    propagateWhen: stringList(
      "Boolean ${...} expressions gating, item by item, when a forEach collection's items may be created or changed (KREP-006; the supported forms are in docs/design/rollouts.md).",
    ),
    cluster: str(
      "kro-ts: the registered cluster this resource is placed in (a name or a ${...} expression); absent: the controller's cluster.",
    ),
    clusters: stringList(
      "kro-ts: the registered clusters an expression `cluster:` may evaluate to (the RGD author's allow list).",
    ),
    forEach: {
      type: "array",
      description: 'Iterators {name: "${list}"}; one object is created per element of their cartesian product.',
      items: { type: "object", minProperties: 1, maxProperties: 1, additionalProperties: { type: "string" } },
    },
  },
};

const childResource: JSONSchemaProps = {
  type: "object",
  description:
    "Template dialect: one child object, rendered with Go templates (or, with manifests, every object of its kind that one spec.helm template renders).",
  required: ["apiVersion", "kind"],
  "x-kubernetes-validations": [
    {
      rule: "has(self.manifests) ? !has(self.nameTemplate) && !has(self.template) : has(self.nameTemplate) && has(self.template)",
      message: "a child has either nameTemplate and template, or manifests",
    },
  ],
  properties: {
    manifests: str(
      "Name of a spec.helm.templates entry; the child owns every object of its kind that template renders.",
    ),
    apiVersion: str("apiVersion of the child."),
    kind: str("kind of the child."),
    id: str("Identifier for .children.<id> and dependsOn; defaults to the kind with a lower-case first letter.", {
      pattern: "^[a-z][a-zA-Z0-9]*$",
    }),
    nameTemplate: str("Go template for metadata.name, e.g. {{.parent.metadata.name}}."),
    condition: str('Go template; the child exists only while it renders "true".'),
    dependsOn: stringList("Ids of children that must exist and be ready before this one is rendered."),
    readyWhen: stringList('Go templates over .self and .parent; the child is ready when all render "true".'),
    template: str("Go template producing the child's YAML (spec, labels, ...)."),
  },
};

const statusMapping: JSONSchemaProps = {
  type: "object",
  description: "Template dialect: copy conditions and fields from one child to the parent's status.",
  required: ["childResource"],
  properties: {
    childResource: {
      type: "object",
      description: "Which child: kind (and apiVersion) plus a Go-template name.",
      required: ["kind", "name"],
      properties: {
        apiVersion: str("apiVersion of the child."),
        kind: str("kind of the child."),
        name: str("Go template for the child's name."),
      },
    },
    conditions: {
      type: "array",
      description: "Child condition types copied onto the parent under another type.",
      items: {
        type: "object",
        required: ["type", "mapping"],
        properties: {
          type: str("Condition type on the child, e.g. Available."),
          mapping: {
            type: "object",
            description: "The parent's condition.",
            required: ["type"],
            properties: { type: str("Condition type on the parent, e.g. Ready.") },
          },
        },
      },
    },
    fieldMappings: {
      type: "array",
      description: "Dot paths copied from the child to the parent.",
      items: {
        type: "object",
        required: ["child", "parent"],
        properties: {
          child: str("Dot path in the child, e.g. status.availableReplicas."),
          parent: str("Dot path in the parent; must start with status.", { pattern: "^status\\." }),
        },
      },
    },
  },
};

export const CONDITION_SCHEMA: JSONSchemaProps = {
  type: "object",
  description: "A standard Kubernetes condition.",
  required: ["type", "status"],
  properties: {
    type: str("Condition type."),
    status: str("True, False or Unknown.", { enum: ["True", "False", "Unknown"] }),
    reason: str("Machine-readable reason in CamelCase."),
    message: str("Human-readable details."),
    lastTransitionTime: str("When status last changed.", { format: "date-time" }),
    observedGeneration: {
      type: "integer",
      format: "int64",
      description: "The metadata.generation this condition was computed for.",
    },
  },
};

/** A Go duration as metav1.Duration reads it: "90s", "10m", "1h30m". */
export const DURATION_PATTERN = "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";
const duration = (description: string): JSONSchemaProps => str(description, { pattern: DURATION_PATTERN });

const labelSelector: JSONSchemaProps = {
  type: "object",
  description:
    "Instances whose labels match, as a Deployment's selector (matchLabels and matchExpressions, all must hold).",
  properties: {
    matchLabels: {
      type: "object",
      description: "Label → value, each must be equal.",
      additionalProperties: { type: "string" },
    },
    matchExpressions: {
      type: "array",
      description: "Requirements, each must hold.",
      maxItems: 32,
      items: {
        type: "object",
        required: ["key", "operator"],
        properties: {
          key: str("Label key."),
          operator: str("How the key's value is compared.", { enum: ["In", "NotIn", "Exists", "DoesNotExist"] }),
          values: stringList("Values for In and NotIn; empty for Exists and DoesNotExist."),
        },
      },
    },
  },
};

const rolloutWave: JSONSchemaProps = {
  type: "object",
  description:
    "One wave: the instances it takes move to the new revision, and the next wave starts only when they are healthy there. At most one of selector, namespaces, clusters, percent; none takes every instance left.",
  required: ["name"],
  "x-kubernetes-validations": [
    {
      rule: "[has(self.selector), has(self.namespaces), has(self.clusters), has(self.percent)].filter(x, x).size() <= 1",
      message: "a wave has at most one of selector, namespaces, clusters and percent",
    },
  ],
  properties: {
    name: str("Name of the wave, shown in status and by kro rollout status.", {
      maxLength: 63,
      pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    }),
    selector: labelSelector,
    namespaces: { ...stringList("Instances in these namespaces."), maxItems: 256 },
    clusters: {
      ...stringList(
        "Instances with a child placed in one of these member clusters (the names they are registered under).",
      ),
      maxItems: 256,
    },
    percent: {
      type: "integer",
      description:
        "Cumulative: the wave ends when this share of all instances runs the new revision (10, then 50, then 100).",
      minimum: 1,
      maximum: 100,
    },
  },
};

/** kro-ts: spec.rollout (docs/design/rollouts.md). */
const rollout: JSONSchemaProps = {
  type: "object",
  description:
    "kro-ts: how a new GraphRevision reaches the instances — in waves, a few at a time, behind a health gate, halted or rolled back on failure. Absent: every instance takes a new revision at once, as in kro. Changing it issues no GraphRevision.",
  properties: {
    waves: {
      type: "array",
      description:
        "Waves in order; an instance belongs to the first that takes it, and one no wave takes to an implicit last wave.",
      maxItems: 32,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: rolloutWave,
    },
    maxUpdating: {
      "x-kubernetes-int-or-string": true,
      description:
        'Instances moved to another revision and not yet healthy there, at once: an integer, or a percentage of all instances ("20%", rounded down, at least 1). Default 25%.',
    },
    gate: {
      type: "object",
      description: "When a moved instance counts as healthy, and how long it may take.",
      properties: {
        readyWithin: duration(
          "Each moved instance must be Ready at the new revision within this (a Go duration, e.g. 10m; default 10m), or the gate fails.",
        ),
        healthyWhen: {
          ...stringList(
            'Further checks, each a single "${...}" CEL expression over the instance (schema), all must be true.',
          ),
          maxItems: 16,
        },
      },
    },
    pauseBetweenWaves: duration("Wait after a wave is healthy before the next one starts (a Go duration; default 0)."),
    onFailure: str(
      "What a failed gate does: Halt (default) stops the rollout; Rollback also returns the moved instances.",
      {
        enum: ["Halt", "Rollback"],
      },
    ),
    pinning: {
      type: "object",
      description:
        "Whether instance authors may pin an instance to an older revision (annotation kro.run/pin-graph-revision).",
      properties: {
        maxRevisionsBack: {
          type: "integer",
          description: "How far below the rollout's target a pin may be; 0 (default) allows no pins.",
          minimum: 0,
          maximum: 100,
        },
      },
    },
  },
};

/** A short list of instances, each with a reason (a halt's failures, pins not honoured). */
function instancesWithReasons(description: string, reason: string): JSONSchemaProps {
  return {
    type: "array",
    description,
    maxItems: 20,
    items: {
      type: "object",
      properties: {
        key: str("The instance's work-queue key."),
        namespace: str("Namespace."),
        name: str("Name."),
        reason: str(reason),
      },
    },
  };
}

const rolloutStatus: JSONSchemaProps = {
  type: "object",
  description: "kro-ts: the rollout of the newest GraphRevision (docs/design/rollouts.md); only with spec.rollout.",
  properties: {
    target: { type: "integer", format: "int64", description: "The revision instances move to." },
    wave: {
      type: "object",
      description: "The wave in progress.",
      properties: {
        index: { type: "integer", description: "0-based position in spec.rollout.waves." },
        name: str("Its name."),
        of: { type: "integer", description: "How many waves there are." },
      },
    },
    updated: { type: "integer", description: "Instances healthy at the target." },
    total: { type: "integer", description: "Instances of the RGD." },
    halted: {
      type: "object",
      description: "The gate failed: nothing moves to this revision until kro rollout resume or a newer revision.",
      properties: {
        revision: { type: "integer", format: "int64", description: "The revision whose gate failed." },
        wave: { type: "integer", description: "The wave it failed in." },
        at: str("When.", { format: "date-time" }),
        instances: instancesWithReasons("The instances that failed and why (the first ones).", "Why."),
      },
    },
    rejected: {
      type: "array",
      description: "Revisions instances must not run: rolled back by the gate or by kro rollout undo.",
      items: {
        type: "object",
        properties: {
          revision: { type: "integer", format: "int64", description: "The revision." },
          by: str("Who rejected it.", { enum: ["gate", "command"] }),
          at: str("When.", { format: "date-time" }),
        },
      },
    },
    resumedAt: str("When the rollout was last resumed: the gate's deadlines count from here.", { format: "date-time" }),
    pinProblems: instancesWithReasons(
      "Instances whose kro.run/pin-graph-revision is not honoured, and why (the first ones); they follow the rollout.",
      "Why the pin is not honoured.",
    ),
  },
};

/** The RGD spec, both dialects (also the schema of a GraphRevision's snapshot). */
export const RGD_SPEC_SCHEMA: JSONSchemaProps = {
  type: "object",
  description:
    "Either the CEL dialect (schema + resources) or the template dialect (resourceKind + childResources + statusMappings).",
  "x-kubernetes-validations": [
    {
      rule: "has(self.schema) != has(self.resourceKind)",
      message: "exactly one of spec.schema or spec.resourceKind must be provided",
    },
    {
      rule: "!has(self.schema) || (!has(self.childResources) && !has(self.statusMappings))",
      message: "spec.schema (CEL dialect) cannot be combined with childResources or statusMappings (template dialect)",
    },
    {
      rule: "!has(self.resourceKind) || !has(self.resources)",
      message: "spec.resourceKind (template dialect) cannot be combined with resources (CEL dialect)",
    },
  ],
  properties: {
    schema: schemaSpec,
    resources: {
      type: "array",
      description: "CEL dialect: the resources behind each instance, in the order you think of them.",
      items: resource,
    },
    resourceKind: {
      type: "object",
      description: "Template dialect: the existing CRD whose instances this RGD reconciles.",
      required: ["group", "version", "kind"],
      properties: {
        group: str("API group of the existing CRD."),
        version: str("Version of the existing CRD."),
        kind: str("Kind of the existing CRD."),
      },
    },
    childResources: {
      type: "array",
      description: "Template dialect: the children of each instance.",
      items: childResource,
    },
    statusMappings: {
      type: "array",
      description: "Template dialect: how the parent's status is filled from its children.",
      items: statusMapping,
    },
    helm: {
      type: "object",
      description: "Template dialect: the Helm chart context of manifests children (kro import helm writes it).",
      properties: {
        templates: {
          type: "object",
          description: "Every template file of the chart and its subcharts, by Helm's template name.",
          additionalProperties: { type: "string" },
        },
        templatesGzip: {
          type: "object",
          description:
            "Templates as base64 gzip, for large charts (kro import helm writes them when the RGD would be too large to store); a name is in templates or here, not both.",
          additionalProperties: { type: "string" },
        },
        charts: {
          type: "array",
          description:
            "The root chart first, then subcharts: templatePrefix, valuesPath, metadata (.Chart), files (.Files) and filesGzip (files as base64 gzip).",
          items: freeForm("One chart of the import."),
        },
        values: freeForm(
          "The chart's default values (values.yaml, subcharts' beneath their names): an instance's spec is coalesced over them as Helm coalesces user values (maps merge, a null removes a default).",
        ),
        valuesGzip: str("values as base64 gzip of their JSON, for large charts; not both."),
        kubeVersion: str("Kubernetes version templates see as .Capabilities.KubeVersion when rendered offline."),
        apiVersions: stringList("Extra .Capabilities.APIVersions entries."),
      },
    },
    rollout,
  },
};

/** status.resources of an RGD or a GraphRevision: resources that depend on others. */
export const RESOURCES_INFO_SCHEMA: JSONSchemaProps = {
  type: "array",
  description: "Resources that depend on others, with their dependencies.",
  items: {
    type: "object",
    properties: {
      id: str("Resource id."),
      dependencies: {
        type: "array",
        description: "Ids this resource depends on.",
        items: { type: "object", properties: { id: str("Resource id.") } },
      },
    },
  },
};

const status: JSONSchemaProps = {
  type: "object",
  description: "What the controller observed about this RGD.",
  properties: {
    state: str("Active when the graph is accepted, its kind is ready and its controller runs; Inactive otherwise.", {
      enum: ["Active", "Inactive"],
    }),
    topologicalOrder: stringList("Resource ids in creation order."),
    resources: RESOURCES_INFO_SCHEMA,
    conditions: {
      type: "array",
      description: "ResourceGraphAccepted, KindReady, ControllerReady and the root Ready.",
      items: CONDITION_SCHEMA,
    },
    lastIssuedRevision: {
      type: "integer",
      format: "int64",
      description:
        "Highest GraphRevision number ever issued for this RGD (kubectl get graphrevisions): a high-water mark that keeps revision numbers monotonic across retention.",
    },
    rollout: rolloutStatus,
  },
};

export function rgdCustomResourceDefinition(): CrdManifest {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: RGD.crdName },
    spec: {
      group: KRO_GROUP,
      scope: "Cluster",
      names: {
        kind: RGD.kind,
        listKind: RGD.listKind,
        plural: RGD.plural,
        singular: RGD.singular,
        shortNames: [RGD.shortName],
      },
      versions: [
        {
          name: KRO_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "APIVERSION", type: "string", jsonPath: ".spec.schema.apiVersion" },
            { name: "KIND", type: "string", jsonPath: ".spec.schema.kind" },
            { name: "STATE", type: "string", jsonPath: ".status.state" },
            { name: "READY", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: "TOPOLOGICALORDER", type: "string", priority: 1, jsonPath: ".status.topologicalOrder" },
            { name: "AGE", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description:
                "A ResourceGraphDefinition defines a new Kubernetes API and the graph of resources created for each of its instances.",
              required: ["spec"],
              properties: {
                apiVersion: str("APIVersion of this object."),
                kind: str("Kind of this object."),
                metadata: { type: "object" },
                spec: RGD_SPEC_SCHEMA,
                status,
              },
            },
          },
        },
      ],
    },
  };
}
