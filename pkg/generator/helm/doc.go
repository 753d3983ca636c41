// Package helm renders Helm charts as a wavekit Generator, using the Helm v3
// SDK (helm.sh/helm/v3) exactly as `helm template` does: the same chart
// loader, dependency processing (conditions, tags, import-values, aliases),
// value coalescing, schema validation, template engine and manifest sorting.
//
// What wavekit adds on top of a plain render:
//
//   - .Release comes from Generate's arguments and the component info in the
//     context (manifests.ComponentInfoFrom): IsInstall on the first apply,
//     IsUpgrade afterwards, Revision, and Service = the operator name.
//   - .Capabilities come from the target cluster's discovery client
//     (manifests.DiscoveryFrom), cached and refreshed when the set of CRDs
//     changes (see capabilities.go); without discovery, Helm's defaults.
//   - lookup reads through the context's client.Reader (manifests.ClientFrom),
//     which in the operator is an informer-backed cache; WithRESTConfig is the
//     fallback for callers without one (see lookup.go).
//   - Helm hooks and the crds/ directory are translated into wavekit
//     annotations (waves, purge, update and delete policies); docs/helm.md
//     has the full table.
//
// The output is deterministic: objects from crds/ first (chart order), then
// the chart's manifests in Helm's install order (releaseutil.InstallOrder,
// stable over file name and document order), then the hooks in the same
// order. Errors carry Helm's own message (file, line and failing expression
// for template errors, the offending value for schema violations) wrapped
// with %w; on error Generate returns no objects at all.
package helm
