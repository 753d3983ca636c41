// Package inputs gives a ComponentSet's members their inputs: the entries
// of spec.inputs.list, the folders and files of a Git repository
// (gitinputs/), the open pull requests of GitHub, GitLab and Gitea
// (pullrequests/), and the matrix of two of them.
//
// # Inputs
//
// An Input is an id, unique within its source and stable from read to
// read (a pull request's number, a folder's path), and the fields a
// template may use. Read returns every input of a set's spec.inputs, or an
// error and none: a source that cannot be read never looks like a source
// with nothing in it, so a caller keeps the members it had.
//
// # Substitution
//
// Substitute replaces ${input.<field>} and ${cluster.name} in the strings
// of a template — no expressions, no functions, nothing executed. A string
// that is one placeholder alone takes the field's value as it is (a
// number, a list); a placeholder within a longer string takes its text,
// and only a string, number or boolean has one. An unknown field is an
// error that names it. Name checks the result of the name template: a DNS
// label of at most 63 characters.
package inputs
