// Package cli is the wavekit command line: the root command, which puts
// together the commands of each group as a user sees them — releases
// (package releases: render, diff, apply, status, list, history, rollback,
// test, delete), Components of the reference operator (components: get,
// tree, suspend, resume, reconcile, dashboard, diff component), ComponentSets
// (componentsets: get --sets, tree --set, diff componentset), local clusters
// (localclusters: cluster) and alerts (alert) — and the commands of their
// own: scaffold, demo, plugin and version. It refuses a command line that
// does not parse, with exit code 2 and the names that come close (usage.go).
// main only calls Run, so tests run every command in process.
//
// What the groups share is in packages of their own: session (the global
// flags, the connection, output formats, errors with hints), input (a
// source and its values), diffview (a preview as a plan and unified
// diffs), livestatus (an object's status as the operator judges it).
package cli
