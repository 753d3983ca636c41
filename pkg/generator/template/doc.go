// Package template is a wavekit generator that renders Go templates.
//
// # Files
//
// The source is a directory or an fs.FS. Every *.yaml, *.yml and *.tpl file
// under it is parsed into one template set, so a template defined in any file
// can be used from every other file. Each template is named by its slash path
// relative to the source root. Files whose name starts with "_" and all *.tpl
// files are partials: they define templates and produce no output of their
// own (the usual place is _helpers.tpl). The other *.yaml and *.yml files are
// rendered in lexical order of their paths, each may hold several YAML
// documents, and their objects are returned in that order. Directories and
// files whose name starts with "." are skipped; other files are ignored.
//
// # Values schema
//
// A values.schema.json at the root of the source is checked by NewGenerator
// (it must be a JSON schema Helm can compile) and the values of every
// Generate are validated against it before anything renders, with Helm's
// own validation (package valuesschema), so that a key the schema does not
// allow is refused with its path, as a Helm chart refuses it.
//
// # Template data
//
// Dot is a Data value:
//
//	.Values     the parameters' ToUnstructured()
//	.Name       the component's name (or its placement override)
//	.Namespace  the component's namespace (or its placement override)
//	.Component  the *manifests.ComponentInfo carried by the context, or nil
//
// The generator does not default metadata.namespace: templates set it, for
// example to {{ .Namespace }}.
//
// # Functions
//
// Funcs builds the function map, shared with the kustomize generator: all of
// sprig v3 except env and expandenv (an operator's environment must not leak
// into manifests), and:
//
//	include NAME DATA       executes the named template and returns its output
//	tpl TEXT DATA           parses TEXT as a template and executes it
//	required MESSAGE VALUE  fails with MESSAGE when VALUE is nil or ""
//	toYaml VALUE            YAML without the final newline
//	fromYaml TEXT           decodes YAML into maps, lists and scalars
//	toJson VALUE            JSON
//	fromJson TEXT           decodes JSON into maps, lists and scalars
//	lookup APIVERSION KIND NAMESPACE NAME
//	                        reads an object of the target cluster through
//	                        manifests.ClientFrom(ctx) and returns it as a map;
//	                        an empty NAME lists (the map holds "items"); the map
//	                        is empty when the object or its kind does not
//	                        exist, or when the context carries no client
//
// Unlike Helm, the conversion functions fail instead of returning an empty or
// an "Error" value, so a bad input stops the rendering with its location.
//
// # Missing keys
//
// By default a missing map key renders like in Helm: it evaluates to nil,
// so {{ if .Values.optional }} works, and prints as an empty string (the
// "<no value>" that text/template would print is removed from the output).
// A field of a missing key, {{ .Values.missing.field }}, is an error as in
// Helm; guard it with "with" or use sprig's dig. WithMissingKeyError makes a
// missing key an error too.
//
// # Errors
//
// Errors name the file and line: a parse error as "template: FILE:LINE: ...",
// an execution error as "template: FILE:LINE:COL: executing ... at <EXPR>:
// ...", and a document that is not valid YAML after rendering as "FILE:
// document N: ...". On any error Generate returns no objects.
package template
