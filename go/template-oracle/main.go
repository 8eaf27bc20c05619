// Command template-oracle renders test cases with Go's text/template plus Sprig v3 and Helm's
// toYaml/required, the reference for src/template's Sprig table (scripts/refresh-template-golden.mjs).
// A case with "helm" is a chart rendered by Helm's engine instead (helm.go).
// Input on stdin: [{"t":..., "data":..., "missingKey":"default|zero|error", "integers":"int64|float64"}].
// Output on stdout: [{"out":...} | {"err":...}].
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

type tcase struct {
	Helm       *helmCase       `json:"helm"`
	T          string          `json:"t"`
	Data       json.RawMessage `json:"data"`
	MissingKey string          `json:"missingKey"`
	Integers   string          `json:"integers"`
}

type result struct {
	Files map[string]string `json:"files,omitempty"`
	Out   *string           `json:"out,omitempty"`
	Err   *string           `json:"err,omitempty"`
}

func convert(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = convert(e)
		}
	case []any:
		for i, e := range x {
			x[i] = convert(e)
		}
	}
	return v
}

func main() {
	var cases []tcase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = func(v any) string {
		data, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	funcs["required"] = func(warn string, val any) (any, error) {
		if val == nil {
			return val, errors.New(warn)
		} else if s, ok := val.(string); ok && s == "" {
			return val, errors.New(warn)
		}
		return val, nil
	}
	results := make([]result, 0, len(cases))
	for _, c := range cases {
		if c.Helm != nil {
			files, err := renderHelm(*c.Helm)
			if err != nil {
				s := err.Error()
				results = append(results, result{Err: &s})
			} else {
				results = append(results, result{Files: files})
			}
			continue
		}
		var data any
		dec := json.NewDecoder(bytes.NewReader(c.Data))
		if c.Integers == "int64" {
			dec.UseNumber()
		}
		if len(c.Data) > 0 {
			if err := dec.Decode(&data); err != nil {
				panic(err)
			}
		}
		data = convert(data)
		mk := c.MissingKey
		if mk == "" {
			mk = "default"
		}
		var r result
		t, err := template.New("t").Funcs(funcs).Option("missingkey=" + mk).Parse(c.T)
		if err == nil {
			var b strings.Builder
			err = t.Execute(&b, data)
			if err == nil {
				s := b.String()
				r.Out = &s
			}
		}
		if err != nil {
			s := err.Error()
			r.Err = &s
		}
		results = append(results, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil {
		panic(err)
	}
}
