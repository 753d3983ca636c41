package inputs

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// Input is one input of a set: the fields a member's template may use.
type Input struct {
	// ID is unique within the input's source and stable from read to read.
	ID string
	// Fields are the input's fields; Fields["id"] is ID.
	Fields map[string]any
}

// Source reads the inputs of one kind of v1alpha1.InputSource for a set
// of namespace (whose Secrets hold its credentials). It returns an error,
// never a partial list, when the source cannot be read.
type Source interface {
	Read(ctx context.Context, namespace string, source v1alpha1.InputSource, opts ReadOptions) ([]Input, error)
}

// ReadOptions are what every read of a set shares.
type ReadOptions struct {
	// Consumer names the set (namespace/name), for logs and counts.
	Consumer string
	// Interval is the set's spec.inputs.interval: a source read within it
	// by anyone of the same identity is not read again.
	Interval time.Duration
	// Since, when set, asks for a read made at or after it, within the
	// interval or not: a reconcile request (a Receiver's event) at that
	// time. The sets one event asks share the one read it brings.
	Since time.Time
}

// Reader reads a set's spec.inputs with a Source per kind; a kind without
// one is refused with an error that says so.
type Reader struct {
	// Git reads gitDirectories and gitFiles; PullRequests reads
	// pullRequests. Either may be nil.
	Git, PullRequests Source
}

// Read returns the inputs of spec, sorted by id.
func (r *Reader) Read(ctx context.Context, namespace string, spec *v1alpha1.Inputs, opts ReadOptions) ([]Input, error) {
	if len(spec.Matrix) > 0 {
		return r.matrix(ctx, namespace, spec.Matrix, opts)
	}
	return r.one(ctx, namespace, spec.InputSource, "spec.inputs", opts)
}

func (r *Reader) one(ctx context.Context, namespace string, source v1alpha1.InputSource, field string, opts ReadOptions) ([]Input, error) {
	var (
		out []Input
		err error
	)
	switch {
	case len(source.List) > 0:
		out, err = List(source.List)
		field += ".list"
	case source.GitDirectories != nil || source.GitFiles != nil:
		if r.Git == nil {
			return nil, fmt.Errorf("%s: this operator reads no Git inputs", field)
		}
		out, err = r.Git.Read(ctx, namespace, source, opts)
	case source.PullRequests != nil:
		if r.PullRequests == nil {
			return nil, fmt.Errorf("%s.pullRequests: this operator reads no pull requests", field)
		}
		out, err = r.PullRequests.Read(ctx, namespace, source, opts)
		field += ".pullRequests"
	default:
		return nil, fmt.Errorf("%s: names no source (list, gitDirectories, gitFiles or pullRequests)", field)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	if err := unique(out); err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	slices.SortFunc(out, func(a, b Input) int { return compare(a.ID, b.ID) })
	return out, nil
}

// matrix pairs each input of the first source with each of the second.
func (r *Reader) matrix(ctx context.Context, namespace string, sources []v1alpha1.InputSource, opts ReadOptions) ([]Input, error) {
	if len(sources) != 2 {
		return nil, fmt.Errorf("spec.inputs.matrix: want two sources, got %d", len(sources))
	}
	a, err := r.one(ctx, namespace, sources[0], "spec.inputs.matrix[0]", opts)
	if err != nil {
		return nil, err
	}
	b, err := r.one(ctx, namespace, sources[1], "spec.inputs.matrix[1]", opts)
	if err != nil {
		return nil, err
	}
	out := make([]Input, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			fields := maps.Clone(x.Fields)
			for k, v := range y.Fields {
				if _, both := fields[k]; both && k != "id" {
					return nil, fmt.Errorf("spec.inputs.matrix: both sources give the field %q (inputs %s and %s): rename it in one", k, x.ID, y.ID)
				}
				fields[k] = v
			}
			id := x.ID + "-" + y.ID
			fields["id"] = id
			out = append(out, Input{ID: id, Fields: fields})
		}
	}
	return out, nil
}

func unique(in []Input) error {
	seen := map[string]bool{}
	for _, i := range in {
		if seen[i.ID] {
			return fmt.Errorf("two inputs have the id %q", i.ID)
		}
		seen[i.ID] = true
	}
	return nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
