// chartrender renders a Helm chart's templates the way `helm template` does
// for the functions charts commonly use (Go templates, sprig, include, tpl,
// required, toYaml, fromYaml, .Files), so the test environment deploys an
// operator from its own chart without a Helm binary.
//
// usage: chartrender CHART_DIR --release NAME --namespace NS [--set a.b=v ...]
//
// Values given with --set are parsed as YAML scalars (true, 3, text).
// templates/NOTES.txt and files starting with "_" are not rendered.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

type files map[string][]byte

func (f files) Get(name string) string { return string(f[name]) }

func (f files) Glob(pattern string) files {
	out := files{}
	for k, v := range f {
		if ok, _ := path.Match(pattern, k); ok {
			out[k] = v
		}
	}
	return out
}

func die(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "chartrender: "+format+"\n", a...)
	os.Exit(1)
}

func setValue(values map[string]any, key, raw string) {
	var v any
	if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
		v = raw
	}
	parts := strings.Split(key, ".")
	m := values
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

func main() {
	if len(os.Args) < 2 {
		die("usage: chartrender CHART_DIR --release NAME --namespace NS [--set a.b=v ...]")
	}
	dir := os.Args[1]
	release, namespace := "release", "default"
	var sets []string
	for i := 2; i < len(os.Args); i++ {
		if i+1 >= len(os.Args) {
			die("flag %s needs a value", os.Args[i])
		}
		switch os.Args[i] {
		case "--release":
			release = os.Args[i+1]
		case "--namespace":
			namespace = os.Args[i+1]
		case "--set":
			sets = append(sets, os.Args[i+1])
		default:
			die("unknown flag %s", os.Args[i])
		}
		i++
	}

	var chart map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, "Chart.yaml")); err != nil {
		die("%v", err)
	} else if err := yaml.Unmarshal(b, &chart); err != nil {
		die("Chart.yaml: %v", err)
	}
	values := map[string]any{}
	if b, err := os.ReadFile(filepath.Join(dir, "values.yaml")); err == nil {
		if err := yaml.Unmarshal(b, &values); err != nil {
			die("values.yaml: %v", err)
		}
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			die("--set %q: want key=value", s)
		}
		setValue(values, k, v)
	}

	all := files{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, _ := os.ReadFile(p)
		all[filepath.ToSlash(rel)] = b
		return nil
	})

	// Chart.yaml's keys are capitalised in templates (.Chart.Name).
	chartObj := map[string]any{}
	for k, v := range chart {
		chartObj[strings.ToUpper(k[:1])+k[1:]] = v
	}
	top := map[string]any{
		"Values":  values,
		"Chart":   chartObj,
		"Release": map[string]any{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true},
		"Files":   all,
		"Capabilities": map[string]any{
			"KubeVersion": map[string]any{"Version": "v1.36.3", "Major": "1", "Minor": "36"},
		},
	}

	t := template.New("chart")
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = func(v any) string {
		b, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	funcs["fromYaml"] = func(s string) map[string]any {
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v any) string {
		b, _ := yaml.YAMLToJSON([]byte(funcs["toYaml"].(func(any) string)(v)))
		return string(b)
	}
	funcs["required"] = func(msg string, v any) (any, error) {
		if v == nil || v == "" {
			return nil, fmt.Errorf("%s", msg)
		}
		return v, nil
	}
	funcs["include"] = func(name string, data any) (string, error) {
		var b bytes.Buffer
		err := t.ExecuteTemplate(&b, name, data)
		return b.String(), err
	}
	funcs["tpl"] = func(text string, data any) (string, error) {
		tt, err := t.Clone()
		if err != nil {
			return "", err
		}
		tt, err = tt.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		err = tt.Execute(&b, data)
		return b.String(), err
	}
	t.Funcs(funcs).Option("missingkey=zero")

	var names []string
	for name := range all {
		if strings.HasPrefix(name, "templates/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if _, err := t.New(name).Parse(string(all[name])); err != nil {
			die("%s: %v", name, err)
		}
	}
	for _, name := range names {
		base := path.Base(name)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, name, top); err != nil {
			die("%s: %v", name, err)
		}
		out := strings.ReplaceAll(b.String(), "<no value>", "")
		if strings.TrimSpace(out) == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, strings.TrimSpace(out))
	}
}
