package operator

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// originURL returns the URL a Flux source fetches from, for the source
// allow-list: spec.url of a GitRepository or OCIRepository, the endpoint
// and bucket of a Bucket, the source of a HelmChart (its HelmRepository's
// URL, with the chart's name for an OCI repository), and the artifact URL
// of an ExternalArtifact, which has no other. An empty URL with no error
// leaves the decision to artifact, which refuses what it must (a
// cross-namespace reference) and waits for what is missing.
func (f *fluxSources) originURL(ctx context.Context, c *v1alpha1.Component) (field, url string, err error) {
	ref := c.Spec.SourceRef
	id := types.NamespacedName{Namespace: orDefault(ref.Namespace, c.Namespace), Name: ref.Name}
	if f.noCrossN && id.Namespace != c.Namespace {
		return "", "", nil
	}
	obj, found, err := f.get(ctx, ref.Kind, id)
	if err != nil || !found {
		return "", "", err
	}
	field = fmt.Sprintf("spec.sourceRef (%s %s)", ref.Kind, id)
	if ref.Kind != "HelmChart" {
		return field, urlOf(obj), nil
	}
	kind, _, _ := unstructured.NestedString(obj.Object, "spec", "sourceRef", "kind")
	name, _, _ := unstructured.NestedString(obj.Object, "spec", "sourceRef", "name")
	chart, _, _ := unstructured.NestedString(obj.Object, "spec", "chart")
	if kind == "" || name == "" {
		return "", "", nil
	}
	src, found, err := f.get(ctx, kind, types.NamespacedName{Namespace: id.Namespace, Name: name})
	if err != nil || !found {
		return "", "", err
	}
	url = urlOf(src)
	if strings.HasPrefix(url, "oci://") {
		url = strings.TrimSuffix(url, "/") + "/" + chart
	}
	return fmt.Sprintf("%s from %s %s", field, kind, name), url, nil
}

// get reads a Flux source from its informer; found is false when it does
// not exist (yet).
func (f *fluxSources) get(ctx context.Context, kind string, id types.NamespacedName) (*unstructured.Unstructured, bool, error) {
	obj, err := f.object(ctx, kind)
	if err != nil {
		return nil, false, err
	}
	if err := f.cache.Get(ctx, id, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, component.Retriable(fmt.Errorf("spec.sourceRef: reading %s %s: %w", kind, id, err), 0)
	}
	return obj, true, nil
}

// urlOf is the URL a Flux source object fetches from.
func urlOf(obj *unstructured.Unstructured) string {
	if obj.GetKind() == "Bucket" {
		endpoint, _, _ := unstructured.NestedString(obj.Object, "spec", "endpoint")
		bucket, _, _ := unstructured.NestedString(obj.Object, "spec", "bucketName")
		insecure, _, _ := unstructured.NestedBool(obj.Object, "spec", "insecure")
		scheme := "https://"
		if insecure {
			scheme = "http://"
		}
		return scheme + endpoint + "/" + bucket
	}
	if url, _, _ := unstructured.NestedString(obj.Object, "spec", "url"); url != "" {
		return url
	}
	url, _, _ := unstructured.NestedString(obj.Object, "status", "artifact", "url")
	return url
}
