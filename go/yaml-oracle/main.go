// Command yaml-oracle reads YAML the way Kubernetes does — sigs.k8s.io/yaml.YAMLToJSON, the
// conversion kubectl, Helm and the API server's YAML decoder use — for the differential tests of
// src/api's YAML reader and writer (test/integration/yaml-go-reader.test.ts).
// Input on stdin: a JSON array of YAML texts (one document each).
// Output on stdout: a JSON array of {"json": "<JSON text>"} | {"err": "<message>"}.
package main

import (
	"encoding/json"
	"os"

	"sigs.k8s.io/yaml"
)

type result struct {
	JSON *string `json:"json,omitempty"`
	Err  *string `json:"err,omitempty"`
}

func main() {
	var texts []string
	if err := json.NewDecoder(os.Stdin).Decode(&texts); err != nil {
		panic(err)
	}
	results := make([]result, len(texts))
	for i, text := range texts {
		results[i] = convert(text)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		panic(err)
	}
}

// convert never lets a panic of the decoder end the run: it is an error of that one case.
func convert(text string) (r result) {
	defer func() {
		if p := recover(); p != nil {
			msg := "panic"
			if e, ok := p.(error); ok {
				msg = e.Error()
			}
			r = result{Err: &msg}
		}
	}()
	out, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		msg := err.Error()
		return result{Err: &msg}
	}
	s := string(out)
	return result{JSON: &s}
}
