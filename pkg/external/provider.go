package external

import "context"

// Provider manages one kind of resource outside Kubernetes: the user's code
// that says how to observe, create, update and delete it. The framework
// calls it in the dependent's wave, records the resource before Create and
// its ID as soon as Create returns, and calls Observe from the poller. A
// Provider must be safe for concurrent use.
type Provider interface {
	// Observe finds the resource: by Request.ID when it is known, else by
	// Request.Key (the name derived from the component), so that a
	// resource created just before a crash is found, not made twice. It
	// returns nil, nil when there is none.
	Observe(ctx context.Context, req Request) (*Observation, error)
	// Create makes the resource under Request.Key (or with it as an
	// idempotency key) and returns what it made, with its ID.
	Create(ctx context.Context, req Request) (Observation, error)
	// Update brings the resource found (current) to Request.Spec.
	Update(ctx context.Context, req Request, current Observation) (Observation, error)
	// Delete removes the resource, by Request.ID, or by Request.Key when
	// the ID is not known (a crash right after Create); a resource already
	// gone is no error.
	Delete(ctx context.Context, req Request) error
}

// Matcher is a Provider that compares desired and observed itself, where
// the external API adds fields or words values its own way. Without it, the
// observed Spec must equal the desired Spec (as JSON values).
type Matcher interface {
	Matches(desired map[string]any, observed Observation) bool
}

// Request is what a Provider is asked about one dependent.
type Request struct {
	// Kind and Name of the dependent in the render.
	Kind, Name string
	// Namespace of the component.
	Namespace string
	// Key is the stable name derived from the component and the dependent
	// (lower case letters, digits and '_', at most 48 characters): create
	// the resource under it or use it as an idempotency key.
	Key string
	// ID is the external API's identifier, once known; empty before.
	ID string
	// Spec is the desired state as rendered (empty on Delete after a
	// restart, when only the inventory is known).
	Spec map[string]any
	// Credentials are the data of the Secret named by credentialsFrom: how
	// to reach and log in to the external API. Never log them.
	Credentials map[string][]byte
	// Secret is the data of the dependent's own Secret (its generated
	// values, such as a password, and its fixed values), written before
	// Create. Never log them.
	Secret map[string][]byte
}

// Observation is what a Provider found or made.
type Observation struct {
	// ID is the external API's identifier of the resource.
	ID string
	// Spec is the observed state in the terms of the desired Spec; it is
	// compared with the desired Spec to find drift.
	Spec map[string]any
	// Ready is true when the resource can be used.
	Ready bool
	// Message says why it is not ready.
	Message string
}
