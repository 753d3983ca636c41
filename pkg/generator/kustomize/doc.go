// Package kustomize is a wavekit generator that builds a kustomization with
// the kustomize API (sigs.k8s.io/kustomize/api/krusty), as `kustomize build`
// does, on an in-memory copy of its source.
//
// # Source
//
// The source is an fs.FS (or a directory) that holds the kustomization to
// build at a path inside it, together with every base, component and file it
// refers to; for example the root of a repository and "overlays/prod". The
// whole source, except directories and files whose name starts with ".", is
// read into memory by NewGenerator; kustomize never sees the disk. Remote
// bases and exec or container plugins are not available.
//
// When the directory to build has no kustomization file, Generate makes one
// whose resources are that directory's *.yaml and *.yml files (not those of
// its subdirectories, not those whose name starts with "_"), sorted.
//
// # Templating
//
// Before kustomize runs, every *.yaml and *.yml file, kustomization files
// included, and every file named Kustomization is rendered as a Go template
// with the data and functions of package template (.Values, .Name,
// .Namespace, .Component; sprig, include, tpl, lookup and the rest), so a
// kustomization can take its namePrefix, images or patches from the
// parameters. Other files (the inputs of configMapGenerator and
// secretGenerator, for instance) are copied as they are. *.tpl files are
// partials: their definitions are available to every template and they are
// not copied. WithTemplatePatterns chooses other files to render and
// WithoutTemplating turns rendering off, for sources whose YAML holds "{{"
// of its own (alerting rules, for example). Missing keys render empty, as in
// package template; see WithTemplateOptions. Every template of the source is
// rendered on every Generate, also those of directories the build does not
// use, so each must render with any parameters the component accepts; give
// NewGenerator only the tree it needs (fs.Sub) when that is a problem.
//
// # Values schema
//
// A values.schema.json in the directory to build is honoured as a Helm
// chart's: NewGenerator checks that Helm can compile it, and Generate
// validates the values against it before anything renders (package
// valuesschema).
//
// # Build
//
// The build uses the defaults of `kustomize build`: load restrictions
// rootOnly, plugins off, Helm off, and the legacy output order (Namespaces
// and CRDs first, webhooks last) unless the kustomization sets sortOptions.
// Objects come back in kustomize's output order. Errors of a template name
// the file and line (see package template); errors of kustomize are wrapped
// with the directory that was built. A source read from a directory
// (NewGeneratorFromDir) is placed in memory at its path on disk, so that a
// build that fails after looking outside it (a base "../base" beyond the
// source's root) is an OutsideSourceError that names that path on disk. The kustomize API itself writes its
// warnings about deprecated fields (commonLabels, patchesStrategicMerge, ...)
// to the process's standard error on every build.
package kustomize
