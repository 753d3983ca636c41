package inputs

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// List makes the inputs of spec.inputs.list: each entry an object, its id
// its field "id" (a string or a number), else its index.
func List(entries []v1alpha1.InputEntry) ([]Input, error) {
	out := make([]Input, 0, len(entries))
	for i, e := range entries {
		fields := map[string]any{}
		if err := json.Unmarshal(e.Raw, &fields); err != nil {
			return nil, fmt.Errorf("[%d]: want an object: %w", i, err)
		}
		id, err := IDOf(fields, strconv.Itoa(i))
		if err != nil {
			return nil, fmt.Errorf("[%d].id: %w", i, err)
		}
		fields["id"] = id
		out = append(out, Input{ID: id, Fields: fields})
	}
	return out, nil
}

// IDOf is the id an object of fields gives its input: its field id (a
// string or a number, not empty), else otherwise.
func IDOf(fields map[string]any, otherwise string) (string, error) {
	switch v := fields["id"].(type) {
	case nil:
		return otherwise, nil
	case string:
		if v == "" {
			return "", fmt.Errorf("empty")
		}
		return v, nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	default:
		return "", fmt.Errorf("want a string or a number, got %T", v)
	}
}
