// kro-oracle runs kro's own graph builder (github.com/kubernetes-sigs/kro v0.9.3,
// pkg/graph.Builder.NewResourceGraphDefinition) on RGD files against a live API server, and prints
// one JSON verdict per file: accepted or not, kro's error, and the CRD kro would generate. It is a
// measuring instrument for docs/design/compatibility.md (scripts/kro-agreement.mjs), never part of
// kro-ts itself. Usage: kro-oracle KUBECONFIG FILE...
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/kubernetes-sigs/kro/api/v1alpha1"
	"github.com/kubernetes-sigs/kro/pkg/graph"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

type verdict struct {
	File     string          `json:"file"`
	Accepted bool            `json:"accepted"`
	Error    string          `json:"error,omitempty"`
	CRD      json.RawMessage `json:"crd,omitempty"`
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kro-oracle:", err)
	os.Exit(2)
}

func judge(builder *graph.Builder, file string) verdict {
	v := verdict{File: file}
	data, err := os.ReadFile(file)
	if err != nil {
		v.Error = err.Error()
		return v
	}
	// kubectl's decoding: YAML to JSON, then the typed object kro's controller receives.
	var rgd v1alpha1.ResourceGraphDefinition
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&rgd); err != nil {
		v.Error = "decode: " + err.Error()
		return v
	}
	g, err := builder.NewResourceGraphDefinition(&rgd, graph.RGDConfig{MaxCollectionSize: 1000, MaxCollectionDimensionSize: 10})
	if err != nil {
		v.Error = err.Error()
		return v
	}
	v.Accepted = true
	if crd, err := json.Marshal(g.CRD); err == nil {
		v.CRD = crd
	}
	return v
}

func main() {
	if len(os.Args) < 3 {
		fail(fmt.Errorf("usage: kro-oracle KUBECONFIG FILE..."))
	}
	config, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		fail(err)
	}
	httpClient, err := rest.HTTPClientFor(config)
	if err != nil {
		fail(err)
	}
	builder, err := graph.NewBuilder(config, httpClient)
	if err != nil {
		fail(err)
	}
	out := json.NewEncoder(os.Stdout)
	for _, file := range os.Args[2:] {
		if err := out.Encode(judge(builder, file)); err != nil {
			fail(err)
		}
	}
}
