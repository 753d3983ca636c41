// Package notifiers sends notify events over HTTP, one notify.Notifier
// per kind of receiver, in the shapes of Flux's notification-controller
// providers:
//
//   - Webhook: the event as JSON to any URL (Flux's generic), optionally
//     signed: X-Signature: sha256=<hex of HMAC-SHA256(key, body)> (its
//     generic-hmac); Sign and Verify compute and check it.
//   - Slack: an incoming webhook's text and blocks.
//   - Teams: an Adaptive Card 1.4 for a Microsoft Teams workflow's webhook.
//   - CloudEvents: a CloudEvent 1.0 over HTTP, structured mode.
//   - GitHub: a commit status on the Git commit of the event's revision,
//     not posted when the latest status of its context says the same.
//
// # Errors
//
// An answer of 408, 429 or 5xx, or none, is an error worth another try;
// any other answer but 2xx is notify.Permanent. Errors name a receiver by
// its scheme and host (Redact), never its path or query: a Slack or Teams
// webhook URL is its own credential, and so is a token in a query. No
// redirect is followed. A notifier has no state but its configuration;
// the dispatcher (pkg/notify) retries, deduplicates and limits.
package notifiers
