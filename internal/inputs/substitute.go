package inputs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// placeholder matches ${input.<path>} and ${cluster.name}; a path is
// field names joined by dots.
var placeholder = regexp.MustCompile(`\$\{(input(?:\.[A-Za-z0-9_-]+)+|cluster\.name)\}`)

// Values are what placeholders are replaced with.
type Values struct {
	Input Input
	// Cluster is the cluster's name; empty: the set has no placement, and
	// ${cluster.name} is an error.
	Cluster string
}

// Substitute replaces the placeholders in every string of the JSON
// document raw and returns the new document.
func Substitute(raw []byte, v Values) ([]byte, error) {
	if !strings.Contains(string(raw), "${") {
		return raw, nil
	}
	var doc any
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber() // numbers of the template stay as they are written
	if err := decoder.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding the template: %w", err)
	}
	out, err := walk(doc, v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

func walk(node any, v Values) (any, error) {
	switch n := node.(type) {
	case map[string]any:
		for k, child := range n {
			out, err := walk(child, v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			n[k] = out
		}
	case []any:
		for i, child := range n {
			out, err := walk(child, v)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			n[i] = out
		}
	case string:
		return String(n, v)
	}
	return node, nil
}

// String replaces the placeholders of s. An s that is one placeholder
// alone gives the value as it is; otherwise each placeholder gives its
// value's text, which only strings, numbers and booleans have.
func String(s string, v Values) (any, error) {
	if m := placeholder.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) {
		return lookup(s[m[2]:m[3]], v)
	}
	var err error
	out := placeholder.ReplaceAllStringFunc(s, func(match string) string {
		value, e := lookup(match[2:len(match)-1], v)
		if e != nil {
			err = e
			return match
		}
		text, e := textOf(value)
		if e != nil {
			err = fmt.Errorf("%s: %w", match, e)
		}
		return text
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lookup is the value a placeholder's path names.
func lookup(path string, v Values) (any, error) {
	if path == "cluster.name" {
		if v.Cluster == "" {
			return nil, fmt.Errorf("${cluster.name}: the set has no spec.placement, so no cluster")
		}
		return v.Cluster, nil
	}
	var node any = v.Input.Fields
	for _, key := range strings.Split(path, ".")[1:] {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("${%s}: %s is not an object in input %s", path, key, v.Input.ID)
		}
		if node, ok = m[key]; !ok {
			return nil, fmt.Errorf("${%s}: input %s has no field %s (it has %s)", path, v.Input.ID, key, fieldNames(m))
		}
	}
	return node, nil
}

func textOf(value any) (string, error) {
	switch x := value.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case json.Number:
		return x.String(), nil
	}
	return "", fmt.Errorf("a %T has no text to put within a string", value)
}

func fieldNames(m map[string]any) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sortStrings(names)
	return strings.Join(names, ", ")
}
