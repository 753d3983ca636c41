package live

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Deleter sends delete requests of its own to read the API server's
// answer, which controller-runtime's client drops. The answer tells an
// object removed at once (a Status, or the object without a
// deletionTimestamp) from one that finalizers or a grace period keep (the
// object, marked for deletion); a pass that knows its objects are gone
// need not wait for the cache to see them go.
type Deleter struct {
	client rest.Interface
}

func NewDeleter(cfg *rest.Config, httpClient *http.Client) (*Deleter, error) {
	c, err := rest.UnversionedRESTClientForConfigAndClient(dynamic.ConfigFor(cfg), httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating REST client for %s: %w", cfg.Host, err)
	}
	return &Deleter{client: c}, nil
}

// Delete deletes live, found at mapping, with opts and reports whether the
// API server removed it at once.
func (d *Deleter) Delete(ctx context.Context, mapping *meta.RESTMapping, live *unstructured.Unstructured, opts metav1.DeleteOptions) (bool, error) {
	body, err := json.Marshal(opts)
	if err != nil {
		return false, fmt.Errorf("encoding delete options: %w", err)
	}
	namespace := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		namespace = live.GetNamespace()
	}
	answer, err := d.client.Delete().AbsPath(resourcePath(mapping, namespace, live.GetName())...).
		SetHeader("Content-Type", "application/json").SetHeader("Accept", answerMetadata).
		Body(body).Do(ctx).Raw()
	if err != nil {
		return false, err
	}
	return removedAtOnce(answer), nil
}

// answerMetadata asks for the answer's metadata alone, which is all
// removedAtOnce reads, and for the whole answer from a server that cannot
// give that, as client-go's metadata client asks.
const answerMetadata = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

// removedAtOnce reads a delete request's answer: a Status, or the deleted
// object as it was, means gone; the object with a deletionTimestamp means
// it is being deleted. An answer it cannot read is not known to be gone.
func removedAtOnce(answer []byte) bool {
	var got struct {
		Kind     string `json:"kind"`
		Metadata struct {
			DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(answer, &got); err != nil || got.Kind == "" {
		return false
	}
	return got.Kind == "Status" || got.Metadata.DeletionTimestamp == nil
}

// resourcePath is the API path of one object, as client-go's dynamic client
// builds it.
func resourcePath(mapping *meta.RESTMapping, namespace, name string) []string {
	r := mapping.Resource
	path := []string{"apis", r.Group, r.Version}
	if r.Group == "" {
		path = []string{"api", r.Version}
	}
	if namespace != "" {
		path = append(path, "namespaces", namespace)
	}
	return append(path, r.Resource, name)
}
