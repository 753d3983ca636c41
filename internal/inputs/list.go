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
		id := strconv.Itoa(i)
		switch v := fields["id"].(type) {
		case nil:
		case string:
			id = v
		case float64:
			id = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			return nil, fmt.Errorf("[%d].id: want a string or a number, got %T", i, v)
		}
		if id == "" {
			return nil, fmt.Errorf("[%d].id: empty", i)
		}
		fields["id"] = id
		out = append(out, Input{ID: id, Fields: fields})
	}
	return out, nil
}
