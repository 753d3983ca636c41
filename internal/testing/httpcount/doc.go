// Package httpcount counts the requests a test server answers, by path,
// so that a test can say how many times a repository, a registry or a Git
// server was asked for what: a figure that does not depend on the
// machine's speed.
package httpcount
