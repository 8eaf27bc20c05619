// The layer rule of docs/architecture (shared/spec/architecture.md), enforced so that a
// wrong-way import fails `npm run lint` instead of living in a document.
const layers = [
  ["api", "diag"],
  ["schema", "kube"],
  ["expr", "template"],
  ["graph"],
  ["runtime", "helm"],
  ["controller", "observability", "localcluster", "inspect"],
  ["cli", "deploy"],
];

const modulePath = (names) => `^src/(${names.join("|")})/`;

const layerRules = layers.slice(0, -1).map((own, index) => ({
  name: `layer-${index}-imports-upward`,
  comment: `${own.join(", ")} (layer ${index}) may import only from its own layer or below`,
  severity: "error",
  from: { path: modulePath(own) },
  to: { path: modulePath(layers.slice(index + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "kube-only-from-io-modules",
      comment: "the HTTP client is used only by controller, localcluster, inspect and cli (and the library entry)",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/(kube|controller|localcluster|inspect|cli)/", "^src/index\\.ts$"] },
      to: { path: "^src/kube/" },
    },
    {
      name: "only-through-index",
      comment: "another module is imported only through its index.ts",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: { path: "^src/[^/]+/", pathNot: ["^src/$1/", "^src/[^/]+/index\\.ts$"] },
    },
    {
      name: "sub-room-only-through-index",
      comment:
        "a module's root files enter one of its sub-rooms (src/<module>/<room>/) only through the room's index.ts",
      severity: "error",
      from: { path: "^(src/[^/]+)/[^/]+\\.ts$" },
      to: { path: "^$1/[^/]+/", pathNot: "^$1/[^/]+/index\\.ts$" },
    },
    {
      name: "sibling-room-only-through-index",
      comment: "one sub-room enters a sibling sub-room of the same module only through that room's index.ts",
      severity: "error",
      from: { path: "^(src/[^/]+)/([^/]+)/" },
      to: { path: "^$1/[^/]+/", pathNot: ["^$1/$2/", "^$1/[^/]+/index\\.ts$"] },
    },
    {
      name: "library-entry-not-imported",
      comment: "src/index.ts is the public surface; modules import each other directly",
      severity: "error",
      from: { path: "^src/[^/]+/" },
      to: { path: "^src/index\\.ts$" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Tests and their helpers may reach into any module they exercise.
    exclude: { path: "\\.test(\\.helpers)?\\.ts$" },
  },
};
