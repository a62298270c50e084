package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/results"
)

// validate checks v against the JSON Schema s (the keywords
// docs/result.schema.json uses: $ref to $defs, type, const, enum,
// required, properties, additionalProperties, items, minimum, minLength)
// and returns what does not hold, each with its path.
func validate(root, s map[string]any, v any, at string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return []string{at + ": unknown $ref " + ref}
		}
		return validate(root, def, v, at)
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if !contains(types, jsonType(v)) && !(jsonType(v) == "integer" && contains(types, "number")) {
			bad("is %s, want %s", jsonType(v), strings.Join(types, " or "))
			return errs
		}
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		bad("is %v, want %v", v, c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || fmt.Sprint(x) == fmt.Sprint(v)
		}
		if !found {
			bad("%v is not one of %v", v, e)
		}
	}
	if m, ok := s["minimum"].(float64); ok {
		if f, isNum := v.(float64); isNum && f < m {
			bad("%v is below %v", f, m)
		}
	}
	if m, ok := s["minLength"].(float64); ok {
		if str, isStr := v.(string); isStr && float64(len(str)) < m {
			bad("%q is shorter than %v", str, m)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, r := range asList(s["required"]) {
			if _, ok := v[r]; !ok {
				bad("lacks %q", r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for _, k := range sortedKeys(v) {
			if p, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(root, p, v[k], at+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					bad("has %q, which the schema does not declare", k)
				}
			case map[string]any:
				errs = append(errs, validate(root, ap, v[k], at+"."+k)...)
			}
		}
	case []any:
		if it, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				errs = append(errs, validate(root, it, x, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return errs
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func asList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		out = append(out, x.(string))
	}
	return out
}

// Every JSON line litebench writes holds to docs/result.schema.json, with
// its values typed (numbers as numbers, booleans as booleans in labels),
// and every field a line has is declared there.
func TestJSONLinesFollowTheSchema(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	props := schema["properties"].(map[string]any)
	var rs []*results.Result
	rs = append(rs, synthetic(16)...)
	rs = append(rs, fixture(t)...)
	rs = append(rs, quickSuite()...)
	rs = append(rs, openLoop()...)
	failed := *quickSuite()[0]
	failed.Status, failed.Error, failed.Ops, failed.Metrics, failed.Series = results.StatusFailed, "synthetic", nil, nil, nil
	rs = append(rs, &failed)
	for _, r := range rs {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		for _, e := range validate(schema, schema, v, r.RunID) {
			t.Error(e)
		}
		var undeclared []string
		for k := range v {
			if _, ok := props[k]; !ok {
				undeclared = append(undeclared, k)
			}
		}
		sort.Strings(undeclared)
		if len(undeclared) > 0 {
			t.Errorf("%s: fields the schema does not declare: %v", r.RunID, undeclared)
		}
	}
	// Typed labels: a boolean setting is a boolean, a numeric parameter a
	// number, and the settings themselves stay exact strings.
	var buf bytes.Buffer
	WriteJSON(&buf, quickSuite()[0])
	var v struct {
		Labels   map[string]any    `json:"labels"`
		Settings map[string]string `json:"settings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Labels["prepared"] != false || v.Labels["rows"] != 1000.0 || v.Labels["journal"] != "default" || v.Settings["prepared"] != "false" {
		t.Errorf("labels %v, settings %v", v.Labels, v.Settings)
	}
}
