// Package sopstest encrypts YAML documents as `sops --encrypt --age` does,
// with SOPS's own Go module, for tests: keys are made by the tests, nothing
// is read from the environment.
package sopstest
