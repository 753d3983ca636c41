// Package apicount counts the requests a client sends to the API server, by
// verb and resource, with an http.RoundTripper. Request counts do not depend
// on machine speed, so tests and benchmarks assert and report them.
package apicount
