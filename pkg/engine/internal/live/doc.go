// Package live reads the live objects of a target. Objects reads through a
// Reader (an informer cache of the owner's objects, or a direct client in
// the CLI) but serves what the applier itself wrote or deleted until the
// cache shows it, so a lagging cache never causes a second write; it probes
// a kind's listability before an informer would wait for it forever.
// Synced starts a kind's informer on its first read and waits for its list
// by notification; Scoped reads a tenant's namespaces from the cache and
// other namespaces directly; Deleter reads the API server's answer to a
// delete, so an object removed at once is gone in the same pass.
package live
