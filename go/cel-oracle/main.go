// cel-oracle evaluates CEL expressions with cel-go v0.23.2 (the version Kubernetes 1.33's API
// server is built with) and the libraries kro's controller and the API server enable: the standard
// library, optionals, ext.Strings (newest version), ext.Lists, ext.Sets, ext.Bindings,
// ext.Encoders, ext.TwoVarComprehensions and Kubernetes' list, regex and URL libraries. It is the reference for
// src/expr's differential test (src/expr/cel-go-differential.test.ts), never part of kro-ts.
//
// Input on stdin: a JSON array of {"expr": "...", "vars": {...}}; every variable is declared dyn
// and decoded as Kubernetes decodes JSON (integers that fit int64 are ints, other numbers doubles;
// a lone surrogate escape becomes U+FFFD). Output: a JSON array, one {"value": V} or
// {"error": "..."} per case, where V tags each CEL value with its type (see encode).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"k8s.io/apiserver/pkg/cel/library"
)

type celCase struct {
	Expr string          `json:"expr"`
	Vars json.RawMessage `json:"vars"`
}

type result struct {
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cel-oracle:", err)
	os.Exit(2)
}

// decodeVars reads a case's variables with json.Number kept, then turns numbers into CEL's int
// (when integral and in range) or double, as the API server's unstructured decoding does.
func decodeVars(raw json.RawMessage) (map[string]any, error) {
	vars := map[string]any{}
	if len(raw) == 0 {
		return vars, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&vars); err != nil {
		return nil, err
	}
	for k, v := range vars {
		vars[k] = numbers(v)
	}
	return vars, nil
}

func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		for i := range t {
			t[i] = numbers(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = numbers(t[k])
		}
	}
	return v
}

// encode tags a CEL value with its type so that int 1, uint 1u and double 1.0 stay distinct:
// {"s": string} {"i": "int"} {"u": "uint"} {"d": number} {"b": bool} {"n": null}
// {"bytes": base64} {"l": [...]} {"m": [[key, value], ...] sorted by key's JSON} {"o": value or null}
// {"t": type name} for anything else.
func encode(v ref.Val) any {
	switch t := v.(type) {
	case types.String:
		return map[string]any{"s": string(t)}
	case types.Int:
		return map[string]any{"i": fmt.Sprint(int64(t))}
	case types.Uint:
		return map[string]any{"u": fmt.Sprint(uint64(t))}
	case types.Double:
		return map[string]any{"d": float64(t)}
	case types.Bool:
		return map[string]any{"b": bool(t)}
	case types.Null:
		return map[string]any{"n": nil}
	case types.Bytes:
		return map[string]any{"bytes": base64.StdEncoding.EncodeToString(t)}
	case *types.Optional:
		if !t.HasValue() {
			return map[string]any{"o": nil}
		}
		return map[string]any{"o": encode(t.GetValue())}
	}
	if m, ok := v.(traits.Mapper); ok {
		entries := [][2]any{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			entries = append(entries, [2]any{encode(k), encode(m.Get(k))})
		}
		sort.Slice(entries, func(i, j int) bool {
			a, _ := json.Marshal(entries[i][0])
			b, _ := json.Marshal(entries[j][0])
			return string(a) < string(b)
		})
		return map[string]any{"m": entries}
	}
	if l, ok := v.(traits.Lister); ok {
		out := []any{}
		it := l.Iterator()
		for it.HasNext() == types.True {
			out = append(out, encode(it.Next()))
		}
		return map[string]any{"l": out}
	}
	return map[string]any{"t": v.Type().(ref.Type).TypeName()}
}

// envs holds one environment per set of variable names: building one costs milliseconds.
var envs = map[string]*cel.Env{}

func envFor(vars map[string]any) (*cel.Env, error) {
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	key := strings.Join(names, ",")
	if env, ok := envs[key]; ok {
		return env, nil
	}
	opts := []cel.EnvOption{
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		ext.Bindings(),
		ext.Encoders(),
		ext.TwoVarComprehensions(),
		library.Lists(),
		library.Regex(),
		library.URLs(),
	}
	for _, name := range names {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	env, err := cel.NewEnv(opts...)
	if err == nil {
		envs[key] = env
	}
	return env, err
}

func evaluate(c celCase) result {
	vars, err := decodeVars(c.Vars)
	if err != nil {
		return result{Error: "vars: " + err.Error()}
	}
	env, err := envFor(vars)
	if err != nil {
		return result{Error: "env: " + err.Error()}
	}
	ast, iss := env.Compile(c.Expr)
	if iss.Err() != nil {
		return result{Error: "compile: " + iss.Err().Error()}
	}
	prg, err := env.Program(ast)
	if err != nil {
		return result{Error: "program: " + err.Error()}
	}
	out, _, err := prg.Eval(vars)
	if err != nil {
		return result{Error: err.Error()}
	}
	return result{Value: encode(out)}
}

func main() {
	var cases []celCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fail(err)
	}
	results := make([]result, len(cases))
	for i, c := range cases {
		results[i] = evaluate(c)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fail(err)
	}
}
