package helm

import (
	"fmt"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	helmrelease "helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// collector turns rendered documents into annotated objects.
type collector struct {
	prefix          string
	isInstall       bool
	dropDeleteHooks bool
	objects         []client.Object
}

// addCRDs adds the files of the crds/ directories of the chart and its
// enabled subcharts, in apply-order CRDApplyOrder.
func (c *collector) addCRDs(crds []chart.CRD) error {
	order := map[string]string{manifests.AnnotationApplyOrder: strconv.Itoa(int(CRDApplyOrder))}
	for _, crd := range crds {
		if err := c.add(crd.Filename, string(crd.File.Data), order); err != nil {
			return err
		}
	}
	return nil
}

// addManifests adds the chart's ordinary (non-hook) manifests.
func (c *collector) addManifests(list []releaseutil.Manifest) error {
	for _, m := range list {
		if err := c.add(m.Name, m.Content, nil); err != nil {
			return err
		}
	}
	return nil
}

// addHooks adds the hooks that take part in this render, translated.
func (c *collector) addHooks(hooks []*helmrelease.Hook) error {
	for _, h := range hooks {
		annotations, keep, err := hookAnnotations(h, c.isInstall, c.dropDeleteHooks)
		if err != nil {
			return err
		}
		if !keep {
			continue
		}
		if err := c.add(h.Path, h.Manifest, annotations); err != nil {
			return err
		}
	}
	return nil
}

// addHook adds the objects of one decoded hook document, translated, if the
// hook takes part in this render.
func (c *collector) addHook(h *helmrelease.Hook, objects []*unstructured.Unstructured) error {
	annotations, keep, err := hookAnnotations(h, c.isInstall, c.dropDeleteHooks)
	if err != nil || !keep {
		return err
	}
	c.addObjects(objects, annotations)
	return nil
}

func (c *collector) add(source, content string, annotations map[string]string) error {
	objects, err := manifests.DecodeObjects(source, []byte(content))
	if err != nil {
		return fmt.Errorf("decoding rendered manifest: %w", err)
	}
	c.addObjects(objects, annotations)
	return nil
}

func (c *collector) addObjects(objects []*unstructured.Unstructured, annotations map[string]string) {
	for _, obj := range objects {
		c.annotate(obj, annotations)
		c.objects = append(c.objects, obj)
	}
}

// annotate adds the wavekit annotations (key suffixes in values) that the
// chart has not set itself, and maps helm.sh/resource-policy: keep onto
// delete-policy: orphan. Helm's own annotations stay on the object.
func (c *collector) annotate(obj *unstructured.Unstructured, values map[string]string) {
	existing := obj.GetAnnotations()
	added := map[string]string{}
	set := func(suffix, value string) {
		key := manifests.Key(c.prefix, suffix)
		if _, ok := existing[key]; ok {
			return
		}
		if _, ok := existing[manifests.Key(c.prefix, manifests.AnnotationOrder)]; ok && suffix == manifests.AnnotationApplyOrder {
			return
		}
		added[key] = value
	}
	for suffix, value := range values {
		set(suffix, value)
	}
	if strings.ToLower(strings.TrimSpace(existing[helmResourcePolicy])) == helmResourcePolicyKeep {
		set(manifests.AnnotationDeletePolicy, string(manifests.DeleteOrphan))
	}
	if len(added) == 0 {
		return
	}
	if existing == nil {
		existing = map[string]string{}
	}
	for k, v := range added {
		existing[k] = v
	}
	obj.SetAnnotations(existing)
}
