package dashboard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/dashboard/oidc"
	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

// Options configure the page.
type Options struct {
	// Kinds are the component kinds to show; at least one.
	Kinds []schema.GroupVersionKind
	// Scheme, if it knows a kind, lets the page share the typed informer
	// the operator's controller already has instead of starting an
	// unstructured one.
	Scheme *runtime.Scheme
	// Auth checks viewers' tokens and decides what they see. Nil serves
	// every viewer everything in the cache, without a login: only for a
	// listener on 127.0.0.1 that serves the user's own credentials.
	Auth Authorizer
	// Title is the page's title (default "wavekit").
	Title string
	// Log receives errors; never a token or a Secret.
	Log logr.Logger
	// Sets are kinds of sets of components to show with their cluster
	// waves, such as the reference operator's ComponentSet. A kind the API
	// server does not serve is left out.
	Sets []SetKind
	// Definitions is a cluster-scoped kind whose objects each define a kind
	// of components (the reference operator's ComponentDefinition): the
	// page lists them with their newest revision (status.revision), the
	// instances each revision has (status.revisions), and the rollout
	// (status.rollout: phase, wave, waves, failed.instance), to viewers who
	// may list them; and once a definition's status names the kind it
	// serves (status.apiVersion, status.kind), the page shows that kind's
	// objects as components. A kind the API server does not serve is left
	// out.
	Definitions *schema.GroupVersionKind
	// SignIn, with Auth, lets people sign in with OpenID Connect besides
	// pasting a token (signin.go).
	SignIn *SignIn
	// Actions lets viewers reconcile, suspend, resume and roll back what
	// they see, each allowed by an RBAC verb of its own (actions.go). On a
	// page without Auth, Client's own credentials decide, and the page
	// answers requests for 127.0.0.1, localhost and [::1] only.
	Actions *Actions
	// Anonymous, with Auth, is who a request without a token or a session
	// is: what RBAC lets that user list, the page shows to anyone who
	// reaches it, read-only (no button, every action refused). Nil: such
	// a request gets 401 or, with SignIn, the sign-in.
	Anonymous *User
	// SessionKey seals the page's cookies and makes its CSRF tokens: at
	// least 32 random bytes, the same on every replica. Nil: a random key,
	// and sessions end when the page stops.
	SessionKey []byte
}

// SignIn is the page's OpenID Connect sign-in.
type SignIn struct {
	// Provider is the OpenID Connect provider people sign in with.
	Provider *oidc.Provider
	// Lifetime is how long a session lasts (default 8h); the user's
	// groups are those of the sign-in for all of it.
	Lifetime time.Duration
}

// Actions are what the page does for viewers allowed to: with the page's
// own client, once a SubjectAccessReview said the viewer may, and each
// recorded as an Event on the object that names the viewer.
type Actions struct {
	// Client writes the objects (the operator's own).
	Client client.Client
	// Recorder records the Events (the operator's own).
	Recorder events.EventRecorder
	// OperatorName is the prefix of the annotations the operator reads
	// (<operator-name>/reconcile-requested-at).
	OperatorName string
	// User is who the Events name on a page without Auth (wavekit
	// dashboard: the user of the kubeconfig), whose own credentials
	// Client writes with.
	User string
}

// SetKind is a kind whose objects each place one component per cluster,
// controlled by the set, and roll a template out to them in cluster waves
// (the reference operator's ComponentSet). The page reads a set's
// spec.paused and status: rollout (wave, waves and the clusters by state),
// conditions and leftClusters; and of the components it controls, the two
// annotations that name their cluster and wave (1-based).
type SetKind struct {
	Kind schema.GroupVersionKind
	// Member is the kind of the set's components: one of Options.Kinds.
	Member                            schema.GroupVersionKind
	ClusterAnnotation, WaveAnnotation string
	// MemberAnnotation and InputAnnotation, when set, name a member's key
	// (the name of its line in status.clusters) and its input's id, for
	// the members of a set's inputs (one per input, or per cluster and
	// input); such a member has a cluster annotation only on a cluster.
	MemberAnnotation, InputAnnotation string
}

// New returns the page's handler. It registers event handlers on the
// informers of the component kinds and of Events in informers (a manager's
// cache: mgr.GetCache()), which must be started for the page to show
// anything; mapper finds the kinds' resources for access reviews.
func New(ctx context.Context, informers cache.Informers, mapper meta.RESTMapper, opts Options) (*Handler, error) {
	if len(opts.Kinds) == 0 {
		return nil, errors.New("dashboard: no component kind given")
	}
	if opts.Title == "" {
		opts.Title = "wavekit"
	}
	if opts.SessionKey == nil {
		opts.SessionKey = session.RandomKey()
	}
	codec, err := session.NewCodec(opts.SessionKey)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if opts.Actions != nil && (opts.Actions.Client == nil || opts.Actions.Recorder == nil || opts.Actions.OperatorName == "") {
		return nil, errors.New("dashboard: actions need a client, an event recorder and the operator's name")
	}
	h := &Handler{opts: opts, codec: codec, live: newBroker(), renders: make(chan struct{}, maxConcurrentRenders)}
	h.store = newStore(opts.Log, h.live.publish)
	for _, gvk := range opts.Kinds {
		kind, err := lookupKind(mapper, gvk)
		if err != nil {
			return nil, err
		}
		h.kinds = append(h.kinds, kind)
	}
	if err := h.lookupSets(mapper); err != nil {
		return nil, err
	}
	for _, kind := range h.kinds {
		if err := h.watch(ctx, informers, newObject(opts.Scheme, kind.gvk), h.store.componentHandler(kind, h.memberKeys(kind))); err != nil {
			return nil, err
		}
	}
	for _, set := range h.sets {
		if err := h.watch(ctx, informers, newObject(opts.Scheme, set.gvk), h.store.setHandler(set)); err != nil {
			return nil, err
		}
	}
	if err := h.watch(ctx, informers, &corev1.Event{}, h.store.eventHandler()); err != nil {
		return nil, err
	}
	if err := h.watchDefinitions(ctx, informers, mapper); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

// lookupSets finds the set kinds' resources; one the API server does not
// serve (an older CRD) is left out, and said so.
func (h *Handler) lookupSets(mapper meta.RESTMapper) error {
	for _, s := range h.opts.Sets {
		kind, err := lookupKind(mapper, s.Kind)
		if meta.IsNoMatchError(err) {
			h.opts.Log.Info("the API server does not serve this kind of set: the page leaves it out", "kind", s.Kind.String())
			continue
		}
		if err != nil {
			return err
		}
		member := slices.IndexFunc(h.kinds, func(k kindInfo) bool { return k.gvk == s.Member })
		if member < 0 {
			return fmt.Errorf("dashboard: the members of %s, %s, are not one of the kinds shown", s.Kind, s.Member)
		}
		h.sets = append(h.sets, setKindInfo{kindInfo: kind, member: h.kinds[member],
			keys: &memberKeys{cluster: s.ClusterAnnotation, wave: s.WaveAnnotation, member: s.MemberAnnotation, input: s.InputAnnotation}})
	}
	return nil
}

// memberKeys are the annotations of kind's components that sets control.
func (h *Handler) memberKeys(kind kindInfo) *memberKeys {
	for _, s := range h.sets {
		if s.member.key == kind.key {
			return s.keys
		}
	}
	return nil
}

// watch adds handler to the informer of obj's kind.
func (h *Handler) watch(ctx context.Context, informers cache.Informers, obj client.Object, handler toolscache.ResourceEventHandler) error {
	informer, err := informers.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("dashboard: the informer of %T: %w", obj, err)
	}
	if _, err := informer.AddEventHandler(handler); err != nil {
		return fmt.Errorf("dashboard: watching %T: %w", obj, err)
	}
	return nil
}

// lookupKind finds a kind's resource.
func lookupKind(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (kindInfo, error) {
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return kindInfo{}, fmt.Errorf("dashboard: the resource of %s: %w", gvk, err)
	}
	key := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		key += "." + gvk.Group
	}
	return kindInfo{gvk: gvk, resource: mapping.Resource.Resource, key: key}, nil
}

// newObject is a typed object of the kind when the scheme knows it, else
// an unstructured one.
func newObject(scheme *runtime.Scheme, gvk schema.GroupVersionKind) client.Object {
	if scheme != nil && scheme.Recognizes(gvk) {
		if obj, err := scheme.New(gvk); err == nil {
			if o, ok := obj.(client.Object); ok {
				return o
			}
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
