// Package gitinputs reads a ComponentSet's spec.inputs.gitDirectories and
// spec.inputs.gitFiles: the directories of a repository's commit whose paths
// match globs, or the YAML and JSON files whose fields become inputs.
//
// # Reading
//
// The commit comes from the operator's shared Git source (pkg/fetch/git),
// with the rules of a Component's spec.git: the allow-lists first, the
// credentials of a Secret of the set's namespace read only when the look
// needs them, and one look at the repository per interval for every reader
// of one identity (anonymous, or the set's namespace and Secret). A read
// asked since a time (a Receiver's event) takes a look made after it.
//
// # Matching
//
// Globs use "/" as the separator: "*" stays within a path element, "**"
// crosses them. The walk never follows a symbolic link and never enters
// .git. A file holds one object (one input) or a list of objects (one per
// entry), at most 1 MiB, and 16 MiB for the files of a read together; a
// read gives at most 1 000 inputs. A file that does not parse, or any bound
// passed, fails the whole read: an error and no inputs, so that the set
// keeps its members.
package gitinputs
