import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kubeGoMod, parseKubernetesGoMod } from "./go-build.js";
import { resolveKubeRelease } from "./versions.js";

const UPSTREAM = `module k8s.io/kubernetes

go 1.24.0

require (
	go.etcd.io/etcd/client/v3 v3.5.21
	go.etcd.io/etcd/server/v3 v3.5.21 // indirect
	k8s.io/api v0.0.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/apiextensions-apiserver => ./staging/src/k8s.io/apiextensions-apiserver
	k8s.io/cri-client => ./staging/src/k8s.io/cri-client
)
`;

describe("parseKubernetesGoMod", () => {
  it("reads the staging modules, the etcd server version and the go directive", () => {
    assert.deepEqual(parseKubernetesGoMod(UPSTREAM), {
      goDirective: "1.24.0",
      stagingModules: ["k8s.io/api", "k8s.io/apiextensions-apiserver", "k8s.io/cri-client"],
      etcdVersion: "v3.5.21",
    });
  });

  it("refuses a go.mod without staging replaces", () => {
    assert.throws(() => parseKubernetesGoMod("module x\n\ngo 1.22\n"), /unexpected k8s.io\/kubernetes go.mod/);
  });
});

describe("kubeGoMod", () => {
  it("requires the pinned release and replaces every staging module with its published version", () => {
    const text = kubeGoMod(resolveKubeRelease("1.33"), parseKubernetesGoMod(UPSTREAM));
    assert.match(text, /^require k8s\.io\/kubernetes v1\.33\.13$/m);
    assert.match(text, /^go 1\.24\.0$/m);
    assert.match(text, /^\tk8s\.io\/api => k8s\.io\/api v0\.33\.13$/m);
    assert.match(text, /^\tk8s\.io\/cri-client => k8s\.io\/cri-client v0\.33\.13$/m);
    assert.equal(text.match(/=>/g)?.length, 3);
  });
});
