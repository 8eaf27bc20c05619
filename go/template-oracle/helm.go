package main

// Helm mode: a case is a small in-memory chart rendered by Helm's own engine
// (helm.sh/helm/v3/pkg/engine), exactly as `helm template` renders it (no cluster: lookup
// returns an empty map). Values arrive as JSON, so numbers are float64 as in Helm.

import (
	"sort"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

type helmChart struct {
	Name       string            `json:"name"`
	Version    string            `json:"version"`
	AppVersion string            `json:"appVersion"`
	Type       string            `json:"type"`
	Templates  map[string]string `json:"templates"`
	Files      map[string]string `json:"files"`
	Values     map[string]any    `json:"values"`
	Subcharts  []helmChart       `json:"subcharts"`
}

type helmCase struct {
	helmChart
	KubeVersion string   `json:"kubeVersion"`
	APIVersions []string `json:"apiVersions"`
	Release     string   `json:"release"`
	Namespace   string   `json:"namespace"`
	IsUpgrade   bool     `json:"isUpgrade"`
	Strict      bool     `json:"strict"`
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func buildChart(h helmChart) *chart.Chart {
	name, version, appVersion := h.Name, h.Version, h.AppVersion
	if name == "" {
		name = "chart"
	}
	if version == "" {
		version = "0.1.0"
	}
	if appVersion == "" {
		appVersion = "1.16.0"
	}
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: name, Version: version, AppVersion: appVersion, Type: h.Type},
		Values:   h.Values,
	}
	if c.Values == nil {
		c.Values = map[string]any{}
	}
	for _, n := range sortedNames(h.Templates) {
		c.Templates = append(c.Templates, &chart.File{Name: n, Data: []byte(h.Templates[n])})
	}
	for _, n := range sortedNames(h.Files) {
		c.Files = append(c.Files, &chart.File{Name: n, Data: []byte(h.Files[n])})
	}
	for _, s := range h.Subcharts {
		c.AddDependency(buildChart(s))
	}
	return c
}

func renderHelm(h helmCase) (map[string]string, error) {
	c := buildChart(h.helmChart)
	caps := chartutil.DefaultCapabilities.Copy()
	if h.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(h.KubeVersion)
		if err != nil {
			return nil, err
		}
		caps.KubeVersion = *kv
	}
	if h.APIVersions != nil {
		caps.APIVersions = chartutil.VersionSet(h.APIVersions)
	}
	caps.HelmVersion.Version = "v3.18.6"
	caps.HelmVersion.GitCommit = ""
	caps.HelmVersion.GitTreeState = ""
	caps.HelmVersion.GoVersion = "go1.24"
	release, ns := h.Release, h.Namespace
	if release == "" {
		release = "rel"
	}
	if ns == "" {
		ns = "ns"
	}
	opts := chartutil.ReleaseOptions{Name: release, Namespace: ns, Revision: 1, IsInstall: !h.IsUpgrade, IsUpgrade: h.IsUpgrade}
	vals, err := chartutil.ToRenderValues(c, map[string]any{}, opts, caps)
	if err != nil {
		return nil, err
	}
	return engine.Engine{Strict: h.Strict}.Render(c, vals)
}
