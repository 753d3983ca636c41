package main

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/internal/inputs/gitinputs"
	"github.com/wavekit-dev/wavekit/internal/inputs/pullrequests"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// setInputs is what the ComponentSets read their spec.inputs with: pull
// request APIs and Git repositories at URLs the source allow-lists admit,
// with tokens and credentials from Secrets of each set's namespace, read
// from the API server (the operator caches no Secret for them).
func setInputs(mgr ctrl.Manager, sources *operator.DefinitionSources) *inputs.Reader {
	s := sources.SetInputs()
	allow := func(ctx context.Context, namespace, url string) error {
		return s.Allow(ctx, namespace, "spec.inputs", url)
	}
	reader := &inputs.Reader{PullRequests: pullrequests.New(mgr.GetAPIReader(), pullrequests.WithAllow(allow))}
	if src := s.Git(); src != nil {
		reader.Git = gitinputs.New(src, mgr.GetAPIReader(), gitinputs.WithAllow(allow))
	}
	return reader
}
