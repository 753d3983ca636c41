// Package expiry is a map whose entries are forgotten a ttl after they
// were put: what the applier remembers for a time (its own writes and
// deletions until the cache shows them, purges, the end states of Jobs and
// tests) stays bounded in an operator that runs for months.
package expiry
