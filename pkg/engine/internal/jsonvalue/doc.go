// Package jsonvalue compares and reads the JSON values of objects as the
// API server stores them: Contains (every field of one in the other,
// without allocating), Lookup at a JSON pointer, Normalise (the form a JSON
// round trip gives, without one), and AbsentOrZero, which stands for a
// rendered zero value the API server does not store.
package jsonvalue
