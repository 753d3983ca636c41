// Package secretmap is a client.Reader of Secrets held in a map, for the
// specs of what reads credentials Secrets where the reader is not what
// they test: a Get of a Secret not in the map answers NotFound, as the API
// server does, and a List fails the spec.
package secretmap
