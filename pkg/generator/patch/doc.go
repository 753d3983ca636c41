// Package patch applies kustomize patches to the objects a generator
// rendered, as the patches field of a kustomization does, and as Flux applies
// the patches of a Kustomization or of a HelmRelease's kustomize post
// renderer. The kustomize API does the work (its builtin PatchTransformer
// plugin); this package picks the objects, checks that every patch finds
// one, and gives the objects back as they came, patched.
//
// # Patches
//
// A Patch holds the text of one patch, YAML or JSON, and optionally a
// Target. Its text is either
//
//   - a strategic merge patch: one object, or several YAML documents, that
//     each name an object by apiVersion, kind and metadata.name. Kinds that
//     Kubernetes knows merge with their built-in schemas, so a list of
//     containers merges by container name and directives such as
//     "$patch: delete" work; kinds it does not know, custom resources for
//     instance, merge as with a JSON merge patch: maps key by key, while a
//     list replaces the list.
//   - a JSON 6902 patch: a list of operations (add, remove, replace, move,
//     copy, test) on JSON pointers. It needs a Target.
//
// kustomize tells them apart: a text that parses as objects is a strategic
// merge patch, a list of operations is a JSON 6902 patch.
//
// # Targets
//
// A Selector picks objects as the target of a kustomize patch does: by
// group, version, kind, name and namespace, each a regular expression that
// must match the whole value ("web-.*"), and by label and annotation
// selectors ("app=web,tier!=cache"). Empty fields match everything. An
// object without namespace is in namespace "default" for the selector, as
// in kustomize. A targeted strategic merge patch must hold one object; its
// kind and name are ignored, so one patch can change many objects.
//
// Without a Target, each object of a strategic merge patch applies to the
// object with its apiVersion, kind and name, and its namespace if it has
// one: unlike kustomize, a patch without namespace finds an object in any
// namespace, since rendered objects usually have theirs already. It must
// find exactly one.
//
// # Errors
//
// Every error names the patch by its position from 1 and what it targets,
// and says why:
//
//	patch 2 (target kind=Deployment name=web): matches no object
//	patch 3 (apps/v1 Deployment web): matches no object
//	patch 4 (target kind=ConfigMap): v1 ConfigMap prod/settings: replace operation does not apply: ...
//
// A patch that selects nothing is an error (errors.Is ErrNoMatch), where
// kustomize would sometimes do nothing: a patch that silently stops
// applying, because a chart renamed an object, is a bug to hear about. So
// are a patch that does not parse, an unknown JSON 6902 operation and one
// that does not apply, such as a replace below a missing path. (The JSON
// patch library of kustomize lets a replace of a missing key of an existing
// object add the key, and so does this package.) Apply returns no objects on
// any error.
//
// # Output
//
// Apply returns *unstructured.Unstructured objects in the order of its
// input; an object that a patch deletes ("$patch: delete") is left out. An
// object no patch changed comes back with the content it had. The patched
// ones carry none of kustomize's bookkeeping annotations
// (internal.config.kubernetes.io/..., config.kubernetes.io/origin and the
// like) unless the input had them, and no empty annotations map when the
// input had none. Transformer wraps Apply as a generator.ObjectTransformer.
package patch
