package generator

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kustomizeimage "sigs.k8s.io/kustomize/api/pkg/util"
)

// podSpecFields says where the pod spec of each workload kind is.
var podSpecFields = map[schema.GroupKind][]string{
	{Kind: "Pod"}:                        {"spec"},
	{Group: "apps", Kind: "Deployment"}:  {"spec", "template", "spec"},
	{Group: "apps", Kind: "StatefulSet"}: {"spec", "template", "spec"},
	{Group: "apps", Kind: "DaemonSet"}:   {"spec", "template", "spec"},
	{Group: "apps", Kind: "ReplicaSet"}:  {"spec", "template", "spec"},
	{Group: "batch", Kind: "Job"}:        {"spec", "template", "spec"},
	{Group: "batch", Kind: "CronJob"}:    {"spec", "jobTemplate", "spec", "template", "spec"},
}

// SetImages returns an ObjectTransformer that sets container images. images
// maps an image name, the reference without tag and digest ("nginx",
// "ghcr.io/org/app"), to the full reference that replaces it
// ("nginx:1.27", "mirror.example.com/app@sha256:..."). It changes the
// containers and init containers of Pods, Deployments, StatefulSets,
// DaemonSets, ReplicaSets, Jobs and CronJobs, unstructured or typed (a typed
// object without apiVersion and kind is recognised through the client-go
// scheme); other objects stay as they are.
func SetImages(images map[string]string) ObjectTransformer {
	return eachObject(func(obj client.Object) error {
		fields, ok := podSpecFields[groupKind(obj)]
		if !ok {
			return nil
		}
		if err := editUnstructured(obj, func(content map[string]any) error {
			return setImages(content, fields, images)
		}); err != nil {
			return fmt.Errorf("setting images of %s %s: %w", groupKind(obj), objectName(obj), err)
		}
		return nil
	})
}

// setImages replaces, in place, the images of the containers and init
// containers of the pod spec at fields of content.
func setImages(content map[string]any, fields []string, images map[string]string) error {
	for _, list := range []string{"initContainers", "containers"} {
		path := append(append([]string{}, fields...), list)
		value, found, err := unstructured.NestedFieldNoCopy(content, path...)
		if err != nil {
			return err
		}
		if !found || value == nil {
			continue
		}
		containers, ok := value.([]any)
		if !ok {
			return fmt.Errorf(".%s is a %T, not a list", strings.Join(path, "."), value)
		}
		for _, c := range containers {
			container, ok := c.(map[string]any)
			if !ok {
				return fmt.Errorf(".%s holds a %T, not an object", strings.Join(path, "."), c)
			}
			image, _ := container["image"].(string)
			name, _, _ := kustomizeimage.SplitImageName(image)
			if replacement, ok := images[name]; ok {
				container["image"] = replacement
			}
		}
	}
	return nil
}

// objectName is "namespace/name", or "name" for an object without namespace.
func objectName(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// groupKind returns the group and kind of obj, from its type meta or, for a
// typed object without it, from the client-go scheme.
func groupKind(obj client.Object) schema.GroupKind {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
		return gvk.GroupKind()
	}
	if gvks, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		return gvks[0].GroupKind()
	}
	return schema.GroupKind{}
}

// editUnstructured calls edit with the unstructured content of obj: in place
// for an unstructured object, through a converted copy that is written back
// for a typed one.
func editUnstructured(obj client.Object, edit func(map[string]any) error) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return edit(u.Object)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("converting to unstructured: %w", err)
	}
	if err := edit(content); err != nil {
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, obj); err != nil {
		return fmt.Errorf("converting from unstructured: %w", err)
	}
	return nil
}
