// Package gitserver serves Git repositories for tests the way real hosts
// do: over smart HTTP with git's own git-http-backend (as a CGI program,
// optionally behind basic authentication and TLS), and over SSH with
// git-upload-pack behind an SSH server that has a host key and accepts one
// client key. It counts the requests each repository gets, and its Repo
// makes commits, tags and pushes (force-pushes too) with the git program,
// signed with OpenPGP (in Go) or SSH (git's own ssh-keygen signing).
//
// It needs the git program (with git-http-backend) and ssh-keygen: the
// Makefile's git-tools target installs them.
package gitserver
