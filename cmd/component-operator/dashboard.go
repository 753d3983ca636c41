package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
	"github.com/wavekit-dev/wavekit/pkg/dashboard/oidc"
	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

// The environment variables of the page's secrets, which flags would show
// to anyone who lists processes.
const (
	envOIDCClientSecret = "WAVEKIT_WEB_OIDC_CLIENT_SECRET"
	envSessionKey       = "WAVEKIT_WEB_SESSION_KEY"
)

// webFlags are the status page's flags besides its address.
type webFlags struct {
	oidc      oidc.Config
	lifetime  time.Duration
	noActions bool
	// anonymous and anonymousGroups are who a request without a
	// credential is; "" for none.
	anonymous, anonymousGroups string
}

func bindWebFlags(fs *flag.FlagSet) *webFlags {
	w := &webFlags{}
	fs.StringVar(&w.oidc.IssuerURL, "web-oidc-issuer-url", "", "OpenID Connect issuer people sign in to the status page with (default: token login only); the client secret is $"+envOIDCClientSecret)
	fs.StringVar(&w.oidc.ClientID, "web-oidc-client-id", "", "the status page's OpenID Connect client ID")
	fs.StringVar(&w.oidc.RedirectURL, "web-oidc-redirect-url", "", "the status page's callback as browsers reach it: <external URL>/auth/callback")
	fs.StringVar(&w.oidc.UsernameClaim, "web-oidc-username-claim", "", "ID token claim that names the user (default email)")
	fs.StringVar(&w.oidc.UsernamePrefix, "web-oidc-username-prefix", "", "prefix of the user's name in RBAC (default oidc:; - for none)")
	fs.StringVar(&w.oidc.GroupsClaim, "web-oidc-groups-claim", "", "ID token claim that lists the user's groups (default groups)")
	fs.StringVar(&w.oidc.GroupsPrefix, "web-oidc-groups-prefix", "", "prefix of each group in RBAC (default oidc:; - for none)")
	fs.DurationVar(&w.lifetime, "web-session-lifetime", 8*time.Hour, "how long a sign-in lasts; the session key is $"+envSessionKey+" (at least 32 bytes, the same on every replica; default a random key per process)")
	fs.StringVar(&w.anonymous, "web-anonymous-user", "", "who a request with neither a token nor a session is: the page shows it what RBAC lets this user list, and offers it no action (default: off, such a request must log in)")
	fs.StringVar(&w.anonymousGroups, "web-anonymous-groups", "", "comma-separated groups of --web-anonymous-user")
	fs.BoolVar(&w.noActions, "web-read-only", false, "offer no action on the status page (reconcile, suspend, resume), whatever RBAC allows")
	return w
}

// options are the page's sign-in, session key and actions.
func (w *webFlags) options(mgr ctrl.Manager, operator string) (dashboard.Options, error) {
	var opts dashboard.Options
	if key := os.Getenv(envSessionKey); key != "" {
		if len(key) < session.MinKeyBytes {
			return opts, fmt.Errorf("$%s: a session key needs at least %d bytes, it has %d", envSessionKey, session.MinKeyBytes, len(key))
		}
		opts.SessionKey = []byte(key)
	}
	if w.oidc.IssuerURL != "" {
		w.oidc.ClientSecret = os.Getenv(envOIDCClientSecret)
		if w.oidc.ClientSecret == "" {
			return opts, errors.New("--web-oidc-issuer-url needs the client secret in $" + envOIDCClientSecret)
		}
		provider, err := oidc.New(w.oidc)
		if err != nil {
			return opts, fmt.Errorf("--web-oidc-*: %w", err)
		}
		opts.SignIn = &dashboard.SignIn{Provider: provider, Lifetime: w.lifetime}
	}
	if w.anonymous != "" {
		opts.Anonymous = &dashboard.User{Username: w.anonymous}
		if w.anonymousGroups != "" {
			opts.Anonymous.Groups = strings.Split(w.anonymousGroups, ",")
		}
	} else if w.anonymousGroups != "" {
		return opts, errors.New("--web-anonymous-groups needs --web-anonymous-user")
	}
	if !w.noActions {
		opts.Actions = &dashboard.Actions{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("wavekit-dashboard"), OperatorName: operator}
	}
	return opts, nil
}

// addDashboard serves the status page of the Components, and with sets of
// the ComponentSets, with definitions of the ComponentDefinitions and the
// instances of their kinds, on addr while the manager runs, from the
// manager's cache; "" leaves it off. operator is the operator name, the
// prefix of the annotations that put a set's Component in its cluster wave.
func addDashboard(mgr ctrl.Manager, addr, operator string, sets, definitions bool, web *webFlags) error {
	if addr == "" {
		return nil
	}
	opts, err := web.options(mgr, operator)
	if err != nil {
		return err
	}
	componentKind := v1alpha1.GroupVersion.WithKind("Component")
	opts.Kinds = []schema.GroupVersionKind{componentKind}
	if sets {
		cluster, wave := fleet.MemberAnnotations(operator)
		opts.Sets = []dashboard.SetKind{{Kind: v1alpha1.GroupVersion.WithKind("ComponentSet"), Member: componentKind,
			ClusterAnnotation: cluster, WaveAnnotation: wave,
			MemberAnnotation: fleet.MemberAnnotation(operator), InputAnnotation: fleet.InputAnnotation(operator)}}
	}
	if definitions {
		kind := v1alpha1.GroupVersion.WithKind("ComponentDefinition")
		opts.Definitions = &kind
	}
	return dashboard.AddToManager(mgr, addr, opts)
}
