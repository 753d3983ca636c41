package main

import (
	"flag"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// definitionFlags turn ComponentDefinitions on.
type definitionFlags struct {
	enabled bool
	groups  string
}

func bindDefinitionFlags(fs *flag.FlagSet) *definitionFlags {
	d := &definitionFlags{}
	fs.BoolVar(&d.enabled, "definitions", false, "serve ComponentDefinitions: write the CRD of each kind they define and reconcile its instances (needs the right to write CRDs and ClusterRoles: the chart's definitions.enabled)")
	fs.StringVar(&d.groups, "definition-groups", "", "comma-separated API groups definitions may define kinds in (a * stands for one label of a group: *.example.com); the operator needs every right on them (the chart's definitions.groups); empty: any group that is not Kubernetes' or the operator's")
	return d
}

// addToScheme adds the operator's types: client-go's, its own, and CRDs.
func addToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// cacheFor adds what the definitions' controller caches, when it runs.
func (d *definitionFlags) cacheFor(name string, base cache.Options) cache.Options {
	if !d.enabled {
		return base
	}
	return definition.CacheFor(name, base)
}

// setup registers the definitions' controller; a shard (or a process with
// a label selector) serves the kinds and writes nothing.
func (d *definitionFlags) setup(mgr ctrl.Manager, name string, sources *operator.DefinitionSources, reconciler component.ReconcilerOptions,
	shard *shardFlags, sink notify.Sink) error {
	if !d.enabled {
		return nil
	}
	_, err := definition.Setup(mgr, definition.Options{Name: name, Sources: sources, Reconciler: reconciler,
		AllowedGroups: splitList(d.groups), ServeOnly: shard.key != "" || shard.selector != "", Notifier: sink})
	if err != nil {
		return fmt.Errorf("--definitions: %w", err)
	}
	return nil
}
