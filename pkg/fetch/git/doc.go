// Package git brings trees of Git repositories onto local disk, for
// components to render: a chart, a kustomization or a folder of templates
// at a path of a repository, at the commit a branch, a tag, a semver range
// over tags, a reference name or a commit names.
//
//	src := git.New(cache) // a fetch.Cache: trees share its size bound
//	tree, err := src.Get(ctx, git.Request{
//		URL: "https://github.com/acme/deploy", Ref: git.Ref{Branch: "main"},
//		MaxAge: time.Minute,
//	})
//	// tree.Dir holds the files; tree.Revision is main@sha1:<hex>.
//
// It is built on go-git, without the git program.
//
// # What a request costs
//
// A look at the remote's refs is one ref advertisement (an HTTP GET of
// info/refs, or an SSH session of git-upload-pack that ends there), as
// git ls-remote makes. Looks are shared: requests for one URL with one
// Identity (who reaches it with which credentials) make one look at a time,
// and a look serves every request whose MaxAge it meets, so a hundred
// requests with the same interval make one look per interval. A look that
// finds the refs moved tells the Consumers of the others (WithOnChange).
//
// A commit is fetched only when the cache holds no tree of it: one commit
// deep, with no other branches or tags, into a temporary repository on
// disk (never in memory), then written out file by file. A tree is kept in
// the cache by repository, commit and what of it is written, with the raw
// commit and tag objects, so that a signature is checked again (a new key
// ring) without fetching. Concurrent requests for one tree make one fetch.
//
// # Bounds
//
// One fetch may receive at most WithMaxSize bytes of pack, and one tree
// write at most as many bytes in WithMaxFiles files, else a
// fetch.SizeLimitError. Each look and fetch has the request's Timeout
// (DefaultTimeout). At most WithHostConcurrency looks and fetches run at
// once per host. The memory of a fetch is go-git's index of the pack (a few
// dozen bytes per object), its cache of decoded objects (8 MiB), and the
// largest file, whatever the size of the repository.
//
// # Refs and trees
//
// Ref's fields take precedence as in Flux's GitRepository (Commit, Name,
// SemVer, Tag, Branch); with none, the remote's default branch. A tree is
// written without .git. Checkout.SparsePaths writes only some directories,
// and makes the tree's Identity the digest of their content rather than
// the commit, so that a commit touching only other directories gives the
// same Identity. Checkout.Ignore takes .gitignore patterns. Symbolic links
// must lead inside the tree (through any other link), and entry names
// that would leave their directory are refused. With Checkout.Submodules,
// the submodules the tree records (not the stale entries of .gitmodules)
// are fetched at their recorded commits; Git LFS files stay pointer files.
//
// # Authentication
//
// Auth holds HTTP basic or bearer credentials, a CA bundle and a client
// certificate, or an SSH key (or the SSH agent) with known_hosts: an SSH
// connection to a host whose key known_hosts does not hold is refused
// (HostKeyError), and one without known_hosts is never attempted. A URL
// with a password in it is refused: credentials are never printed.
//
// # Verification
//
// Request.Verify checks the signature of the commit (VerifyHEAD), of the
// annotated tag (VerifyTag), or both, against a KeyRing of OpenPGP keys
// (*.asc) and SSH keys (*.sshpub, OpenSSH's git signatures). A missing or
// untrusted signature is a VerificationError naming the key that signed.
package git
