package demo

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// repositorySteps serves a Helm repository on localhost and installs a
// chart from it with spec.chart, then upgrades it by changing the version
// constraint, and deletes it.
func (d *demo) repositorySteps(ctx context.Context) error {
	repo, err := localrepo.NewRepository()
	if err != nil {
		return err
	}
	defer repo.Close()
	if err := repo.Add(localrepo.Hello("1.0.0"), localrepo.Hello("1.1.0")); err != nil {
		return err
	}
	d.say("serving a Helm repository on %s with chart hello 1.0.0 and 1.1.0", repo.URL)
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "hello"},
		Spec: v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "hello", Version: "~1.0.0"}}}
	d.say("creating Component %s/%s from the repository (spec.chart, version ~1.0.0)", namespace, c.Name)
	if err := d.client.Create(ctx, c); err != nil {
		return fmt.Errorf("creating the Component: %w", err)
	}
	if err := d.watchRevision(ctx, c, "1.0.0"); err != nil {
		return err
	}
	d.say("upgrading: version ~1.1.0")
	if err := d.client.Get(ctx, client.ObjectKeyFromObject(c), c); err != nil {
		return fmt.Errorf("reading the Component: %w", err)
	}
	c.Spec.Chart.Version = "~1.1.0"
	if err := d.client.Update(ctx, c); err != nil {
		return fmt.Errorf("updating the Component: %w", err)
	}
	if err := d.watchRevision(ctx, c, "1.1.0"); err != nil {
		return err
	}
	if err := d.client.Delete(ctx, c); err != nil {
		return fmt.Errorf("deleting the Component: %w", err)
	}
	return d.watch(ctx, c, "gone", nil)
}

// watchRevision waits until the Component is Ready with the chart version
// in status.source, and says what it recorded.
func (d *demo) watchRevision(ctx context.Context, c *v1alpha1.Component, version string) error {
	var source string
	err := d.watch(ctx, c, "Ready with chart "+version, func(got *v1alpha1.Component) bool {
		s := got.Status.Source
		if got.Status.State != component.StateReady || got.Status.ObservedGeneration != got.Generation || s == nil || s.Revision != version {
			return false
		}
		source = fmt.Sprintf("%s (%s)", s.URL, s.Digest[:min(len(s.Digest), 19)]+"…")
		return true
	})
	if err == nil {
		d.say("status.source: %s", source)
	}
	return err
}
