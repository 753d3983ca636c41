// Package diffview shows a preview (engine.Preview) the way the diff verbs
// print it: the plan's steps wave by wave with their reasons, the changed
// objects as unified diffs without the fields the API server sets, the
// values of Secrets masked unless asked, or the same as a JSON or YAML
// report (docs/schemas/diff.schema.json); a plan that changes something
// ends with exit code 1.
package diffview
