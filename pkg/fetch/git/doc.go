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
// requests whose MaxAge is a little under their interval make one look per
// interval. A request that stops waiting (its context ends) does not end
// the look the others wait for: a look runs on its own, within its
// Timeout. A look that finds a ref moved tells the Consumers that use that
// ref (WithOnChange): a branch, its tags for a semver range, HEAD; not
// the others (GitHub advertises every pull request's refs/pull/*).
//
// A commit is fetched only when the cache holds no repository of it: one
// commit deep, with no other branches or tags, into a repository on disk
// (never in memory) that the cache keeps by URL and commit. Each tree
// asked of it (the whole commit, or a Checkout's sparse paths, ignore
// rules and submodules) is written out of that repository file by file,
// and kept in the cache too: the trees of one commit share one fetch,
// whoever asks. Where the remote
// serves any commit by its SHA-1 (GitHub, GitLab), the commit a look saw
// is fetched by its SHA-1, however old the look; else by its ref, and when
// the ref moved since the look (the commit is not what came), the ref is
// looked at again and the new commit fetched. A tree is kept in the cache
// by repository, commit and what of it is written, with the raw commit and
// tag objects, so that a signature is checked again (a new key ring)
// without fetching; a kept object is checked to be the one its SHA-1
// names before its signature is. Concurrent requests for one commit make
// one fetch.
//
// # Bounds
//
// One fetch may receive at most WithMaxSize bytes of pack, its objects
// may inflate to at most as many together and each to at most
// WithMaxObjectSize (a delta: the object it builds), and one tree write
// at most WithMaxSize bytes in WithMaxFiles files, else a
// fetch.SizeLimitError. The Source remembers such a refusal, and an
// UnsafeTreeError, by commit (and tree): asking again returns it with no
// download. Each look and fetch has the request's Timeout
// (DefaultTimeout), an SSH connection's handshake included. At most
// WithHostConcurrency looks and fetches run at once per host, submodules'
// included.
//
// # Memory
//
// go-git inflates every object of a pack in memory to index it (a delta's
// result too), whatever the pack's size: a pack of a few hundred KiB of
// zeros may inflate to gigabytes. So the pack goes to a file first, and
// its objects' headers are read, as a stream, before go-git sees it: a
// pack over a bound is refused there, having held only a few buffers.
// What a fetch then holds in memory is go-git's index of the pack (a few
// dozen bytes an object), its cache of delta bases (up to 96 MiB, of
// objects of at most WithMaxObjectSize), its cache of decoded objects
// (8 MiB), and a few copies of the object being indexed or written (files
// over 1 MiB are read as streams): with the default 16 MiB, a commit of
// two 16 MiB files, one a delta of the other, peaks at about 100 MiB of Go
// heap, garbage included; a commit of 30 000 small files at 50-65 MiB.
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
// (HostKeyError), and one without known_hosts is never attempted. An HTTP
// URL with user information in it is refused, and no message shows a
// URL's user information (a token may stand there). A submodule is
// reached with the request's credentials only at the repository's origin
// (scheme, host and port). A redirect is followed on the first request
// only (as git does), never from https to http, never with credentials to
// another origin (go-git's rules), and only to a repository Request.Allow
// allows (RedirectError).
//
// The package installs go-git's HTTP transport for http and https with a
// redirect check, and registers a proxy scheme of x/net/proxy through
// which go-git's SSH transport dials: both act on this package's requests
// only.
//
// # Verification
//
// Request.Verify checks the signature of the commit (VerifyHEAD), of the
// annotated tag (VerifyTag), or both, against a KeyRing of OpenPGP keys
// (*.asc) and SSH keys (*.sshpub, OpenSSH's git signatures; an RSA key's
// signature over SHA-1, ssh-rsa, is refused as OpenSSH refuses it). A
// missing or untrusted signature is a VerificationError naming the key
// that signed.
package git
