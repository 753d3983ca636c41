package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// addDashboard serves the read-only status page of the Components, and with
// sets of the ComponentSets, with definitions of the ComponentDefinitions
// and the instances of their kinds, on addr while the manager runs, from
// the manager's cache; "" leaves it off. operator is the operator name, the
// prefix of the annotations that put a set's Component in its cluster wave.
func addDashboard(mgr ctrl.Manager, addr, operator string, sets, definitions bool) error {
	componentKind := v1alpha1.GroupVersion.WithKind("Component")
	opts := dashboard.Options{Kinds: []schema.GroupVersionKind{componentKind}}
	if sets {
		cluster, wave := fleet.MemberAnnotations(operator)
		opts.Sets = []dashboard.SetKind{{Kind: v1alpha1.GroupVersion.WithKind("ComponentSet"), Member: componentKind,
			ClusterAnnotation: cluster, WaveAnnotation: wave,
			MemberAnnotation: fleet.MemberAnnotation(operator), InputAnnotation: fleet.InputAnnotation(operator)}}
	}
	if definitions {
		kind := v1alpha1.GroupVersion.WithKind("ComponentDefinition")
		opts.Definitions = &kind
	}
	return dashboard.AddToManager(mgr, addr, opts)
}
