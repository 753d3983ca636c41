// Package alerts is the reference operator's side of pkg/notify: its kinds
// Alert and Provider (api/v1alpha1), shaped after Flux's
// notification-controller, route the events of Components and
// ComponentSets to webhooks, chats and commit statuses.
//
// # Routing
//
// Setup adds a notify.Dispatcher to the manager whose Router (router.go)
// lists, from the manager's cache, the Alerts of the event's own namespace
// and no other, and sends the event to the Provider of each Alert that
// selects it (match.go: event sources by kind, name or * and labels,
// severity, events, inclusion and exclusion expressions), once per
// Provider. An Alert has no namespace field: a tenant's Alert never sees
// another namespace's objects.
//
// # Credentials
//
// A Provider names a Secret of its own namespace (address, token). It is
// read at each try (provider.go), as the namespace's service account
// under the lockdown (--default-service-account), else as the operator,
// and kept nowhere; its values go into requests (a URL, a header, an HMAC
// key), never into a payload, an error or a log. NotifierFor builds the
// notifier of a Provider and its Secret's data, for the operator and for
// wavekit alert test alike.
package alerts
