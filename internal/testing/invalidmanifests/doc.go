// Package invalidmanifests holds manifests that apply refuses before any
// write, with the message it gives: the one table that the engine's tests
// (Apply against a real API server) and the CLI's tests (wavekit render
// offline and wavekit apply) both run, so render validates what apply
// validates.
package invalidmanifests
