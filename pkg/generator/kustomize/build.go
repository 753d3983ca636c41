package kustomize

import (
	"fmt"
	"path"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// build writes files (by slash path) into an in-memory file system under
// the mount of root (see mountFor) and runs kustomize on dir with the
// defaults of `kustomize build`.
func build(files map[string][]byte, dir, root string) ([]client.Object, error) {
	mount := mountFor(root)
	fsys := &watchedFS{FileSystem: filesys.MakeFsInMemory(), mount: mount}
	for p, data := range files {
		if err := fsys.WriteFile(path.Join(mount, p), data); err != nil {
			return nil, fmt.Errorf("writing %s to the in-memory file system: %w", p, err)
		}
	}
	options := krusty.MakeDefaultOptions()
	options.Reorder = krusty.ReorderOptionUnspecified // legacy order unless sortOptions says otherwise
	resources, err := krusty.MakeKustomizer(options).Run(fsys, path.Join(mount, dir))
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, fsys.explain(err, root))
	}
	objects := make([]client.Object, 0, resources.Size())
	for _, resource := range resources.Resources() {
		data, err := resource.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encoding %s: %w", resource.CurId(), err)
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", resource.CurId(), err)
		}
		objects = append(objects, obj)
	}
	return objects, nil
}
