// Package valuesschema checks a component's values against the
// values.schema.json of its source with Helm's own validation
// (helm.sh/helm/v3/pkg/chartutil, JSON Schema through
// santhosh-tekuri/jsonschema), so that a folder of Go templates or a
// kustomization refuses values as a Helm chart does: a key that the schema
// does not allow (additionalProperties: false), a wrong type, a missing
// required key. The message lists every violation with its JSON pointer, sorted
// so that the same values always give the same message.
//
// As in Helm, the schema may refer to other schemas by file, http and https
// URLs; give it none where the source is not trusted to make the renderer
// read files or the network.
package valuesschema
