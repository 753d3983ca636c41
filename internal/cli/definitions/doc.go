// Package definitions holds wavekit definition, the commands on
// ComponentDefinitions of the reference operator: create makes one from a
// chart or a folder and previews the CRD the operator would write for it,
// with the keywords of the source's values.schema.json the CRD cannot hold;
// render renders an instance of a defined kind offline, as the operator
// would; list lists the definitions with their revisions and rollouts.
package definitions
