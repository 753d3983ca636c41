package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ErrUnauthenticated is returned for a token the API server does not accept.
var ErrUnauthenticated = errors.New("the token was not accepted")

// Access is one thing a viewer may be allowed to do: a verb on a resource in
// a namespace ("" for every namespace), or on one object of it (Name).
type Access struct {
	Verb      string
	Group     string
	Resource  string
	Namespace string
	Name      string
}

// User is who a viewer is, as RBAC sees them: the user of a token, or the
// one an OpenID Connect sign-in names.
type User = authenticationv1.UserInfo

// Authorizer checks viewers' tokens and decides what they may see and do.
type Authorizer interface {
	// Authenticate returns the token's user, or ErrUnauthenticated
	// (wrapped) for a token the cluster does not accept.
	Authenticate(ctx context.Context, token string) (User, error)
	// Allowed tells whether user may do what access says.
	Allowed(ctx context.Context, user User, access Access) (bool, error)
}

// KubernetesAuth is the Authorizer of an operator: TokenReviews and
// SubjectAccessReviews sent to the API server, their answers kept for TTL.
type KubernetesAuth struct {
	client kubernetes.Interface
	ttl    time.Duration
	users  *ttlCache[authenticationv1.UserInfo]
	access *ttlCache[bool]
	flight singleflight.Group
}

// NewKubernetesAuth returns an Authorizer that asks the API server through
// client and keeps its answers for ttl (a minute is usual).
func NewKubernetesAuth(client kubernetes.Interface, ttl time.Duration) *KubernetesAuth {
	return &KubernetesAuth{client: client, ttl: ttl, users: newTTLCache[authenticationv1.UserInfo](), access: newTTLCache[bool]()}
}

// Authenticate checks the token with a TokenReview.
func (a *KubernetesAuth) Authenticate(ctx context.Context, token string) (User, error) {
	return a.user(ctx, token)
}

// user returns the token's user, from the cache or a TokenReview.
func (a *KubernetesAuth) user(ctx context.Context, token string) (authenticationv1.UserInfo, error) {
	key := "user/" + hashToken(token)
	if user, ok := a.users.get(key); ok {
		return user, nil
	}
	v, err, _ := a.flight.Do(key, func() (any, error) {
		review, err := a.client.AuthenticationV1().TokenReviews().Create(ctx,
			&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("reviewing a token: %w", err)
		}
		if !review.Status.Authenticated {
			return nil, ErrUnauthenticated
		}
		a.users.put(key, review.Status.User, a.ttl)
		return review.Status.User, nil
	})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return v.(authenticationv1.UserInfo), nil
}

// Allowed asks a SubjectAccessReview for user.
func (a *KubernetesAuth) Allowed(ctx context.Context, user User, access Access) (bool, error) {
	key := fmt.Sprintf("%s/%s/%s/%s/%s/%s", userKey(user), access.Verb, access.Group, access.Resource, access.Namespace, access.Name)
	if allowed, ok := a.access.get(key); ok {
		return allowed, nil
	}
	v, err, _ := a.flight.Do(key, func() (any, error) {
		review, err := a.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, accessReview(user, access), metav1.CreateOptions{})
		if err != nil {
			return false, fmt.Errorf("reviewing access to %s: %w", access.Resource, err)
		}
		a.access.put(key, review.Status.Allowed, a.ttl)
		return review.Status.Allowed, nil
	})
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}

// accessReview is the SubjectAccessReview of one access by user.
func accessReview(user authenticationv1.UserInfo, access Access) *authorizationv1.SubjectAccessReview {
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	return &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: access.Verb, Group: access.Group, Resource: access.Resource, Namespace: access.Namespace, Name: access.Name,
		},
	}}
}

// userKey is the key of a user in the access cache: a digest of all that
// RBAC reads of them.
func userKey(user User) string {
	data, _ := json.Marshal(user)
	return hashToken(string(data))
}

// hashToken is the key of a token in the caches: the token itself is
// never kept.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ttlCache keeps values until they expire.
type ttlCache[V any] struct {
	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

// maxCacheEntries is the size at which expired entries are swept.
const maxCacheEntries = 10000

func newTTLCache[V any]() *ttlCache[V] { return &ttlCache[V]{entries: map[string]ttlEntry[V]{}} }

func (c *ttlCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || time.Now().After(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c *ttlCache[V]) put(key string, value V, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if len(c.entries) >= maxCacheEntries {
		for k, e := range c.entries {
			if now.After(e.expires) {
				delete(c.entries, k)
			}
		}
	}
	c.entries[key] = ttlEntry[V]{value: value, expires: now.Add(ttl)}
}
