// Package receiver is the reference operator's webhook receiver: an HTTP
// endpoint (off until --receiver-bind-address gives it an address) that
// takes the webhooks of GitHub, GitLab, Harbor and other OCI registries, and
// generic HMAC senders, each configured by a Receiver of the namespace it
// serves, and asks for a reconcile of the Components and ComponentSets the
// Receiver names, as Flux's notification-controller Receiver does.
//
// A Receiver's path is /hook/ and the hex SHA-256 of its token, name and
// namespace (controller.go writes it to status.webhookPath). A request is
// verified by the Receiver's type (verify.go: the HMAC-SHA256 of the body,
// or the token in a header, compared in constant time); an unverified one
// gets 401 and changes nothing. Bodies are bounded (413), requests are
// rate-limited, all of them before any work and the verified ones per
// Receiver (429, limits.go), and a delivery seen before, by its delivery ID
// or, for the types that sign the body, by the body, is answered without
// asking anything again (replays.go).
//
// A verified request sets the annotation <operator>/reconcile-requested-at
// of each object the Receiver names to the time, by a merge patch of that one
// annotation through the API server (ask.go): the existing reconcile on
// request, which every replica and shard sees. This is the one write the
// operator makes to a Component's or ComponentSet's metadata besides its
// finalizer, at a verified sender's request, and only in the Receiver's own
// namespace. Nothing here logs or answers with a token.
package receiver
