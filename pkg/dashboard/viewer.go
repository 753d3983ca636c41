package dashboard

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
)

// viewer is who a request comes from. Without an Authorizer it may see
// everything in the cache.
type viewer struct {
	auth Authorizer
	// user is who the token or the signed-in session names; loggedIn
	// tells whether there is one.
	user     User
	loggedIn bool
	// session is what the viewer's CSRF token is made of: the id of the
	// signed-in session, or a digest of the token.
	session string
	// seen is the broker's seq when the request came: its page has seen
	// every change up to it, since the store is read after.
	seen uint64
	log  logr.Logger
	mu   sync.Mutex
	memo map[Access]bool
	// noMemo asks the Authorizer every time (a live stream outlives a
	// request's memo).
	noMemo bool
}

// may tells whether the viewer may do access, asking the Authorizer once
// per request and access.
func (v *viewer) may(ctx context.Context, access Access) bool {
	if v.auth == nil {
		return true
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if allowed, ok := v.memo[access]; ok && !v.noMemo {
		return allowed
	}
	allowed, err := v.auth.Allowed(ctx, v.user, access)
	if err != nil {
		v.log.Error(err, "checking what a viewer may see", "resource", access.Resource, "namespace", access.Namespace)
	}
	if v.memo == nil {
		v.memo = map[Access]bool{}
	}
	v.memo[access] = allowed
	return allowed
}

// mayList tells whether the viewer may list a kind in a namespace: with
// the right in every namespace, or in that one.
func (v *viewer) mayList(ctx context.Context, kind kindInfo, namespace string) bool {
	access := Access{Verb: "list", Group: kind.gvk.Group, Resource: kind.resource}
	if v.may(ctx, access) {
		return true
	}
	access.Namespace = namespace
	return v.may(ctx, access)
}

// seesRecord tells whether the viewer may see a component.
func (v *viewer) seesRecord(ctx context.Context, r *record) bool {
	return v.mayList(ctx, r.kind, r.namespace)
}

// mayReadEvents tells whether the viewer may list the Events of a namespace.
func (v *viewer) mayReadEvents(ctx context.Context, namespace string) bool {
	access := Access{Verb: "list", Resource: "events"}
	if v.may(ctx, access) {
		return true
	}
	access.Namespace = namespace
	return v.may(ctx, access)
}
