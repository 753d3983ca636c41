// Package giturl reads git's scp-like addresses of SSH repositories
// (git@github.com:org/repo.git), the one form of a repository's address
// that is not a URL, the way git does, for every part of wavekit that
// takes a repository's address: the Git source and its submodules, the
// CLI, the receivers, the allow-lists and the GitHub notifier; and writes
// a repository's URL for a message without its user information.
package giturl
