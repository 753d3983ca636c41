package alerts

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// NotifierFor is the notifier of provider with the data of its Secret
// (nil without one): the same for the operator and for wavekit alert test.
// Its errors name the Provider and what is missing, never a value.
func NotifierFor(provider *v1alpha1.Provider, secret map[string][]byte) (notify.Notifier, error) {
	where := "Provider " + provider.Namespace + "/" + provider.Name
	address, token := provider.Spec.Address, string(secret[v1alpha1.ProviderTokenKey])
	if a, ok := secret[v1alpha1.ProviderAddressKey]; ok && provider.Spec.Type != v1alpha1.ProviderGitHub {
		address = strings.TrimSpace(string(a))
	}
	if err := checkAddress(provider, address, secret != nil); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	needsToken := provider.Spec.Type == v1alpha1.ProviderGenericHMAC || provider.Spec.Type == v1alpha1.ProviderGitHub
	if needsToken && token == "" {
		return nil, fmt.Errorf("%s: its Secret %s has no key %s, which a %s Provider needs", where, secretName(provider), v1alpha1.ProviderTokenKey, provider.Spec.Type)
	}
	n, err := notifierOf(provider, address, token)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if t := provider.Spec.Timeout; t != nil && t.Duration > 0 {
		n = bounded{Notifier: n, timeout: t.Duration}
	}
	return n, nil
}

// notifierOf is the notifier of the provider's type.
func notifierOf(provider *v1alpha1.Provider, address, token string) (notify.Notifier, error) {
	switch provider.Spec.Type {
	case v1alpha1.ProviderGeneric:
		return &notifiers.Webhook{URL: address, Token: token}, nil
	case v1alpha1.ProviderGenericHMAC:
		return &notifiers.Webhook{URL: address, HMACKey: []byte(token)}, nil
	case v1alpha1.ProviderSlack:
		return &notifiers.Slack{URL: address, Channel: provider.Spec.Channel, Username: provider.Spec.Username}, nil
	case v1alpha1.ProviderMSTeams:
		return &notifiers.Teams{URL: address}, nil
	case v1alpha1.ProviderCloudEvents:
		return &notifiers.CloudEvents{URL: address, Token: token}, nil
	case v1alpha1.ProviderGitHub:
		owner, repo, err := notifiers.ParseRepository(address)
		if err != nil {
			return nil, fmt.Errorf("spec.address: %w", err)
		}
		suffix, _, _ := strings.Cut(string(provider.UID), "-")
		return &notifiers.GitHub{API: provider.Spec.APIURL, Owner: owner, Repo: repo, Token: token, ContextSuffix: suffix}, nil
	}
	return nil, fmt.Errorf("spec.type %q is none of generic, generic-hmac, slack, msteams, cloudevents, github", provider.Spec.Type)
}

// checkAddress says what is wrong with the address of provider, without
// quoting it: it may come from the Secret.
func checkAddress(provider *v1alpha1.Provider, address string, fromSecret bool) error {
	if address == "" {
		return fmt.Errorf("neither spec.address nor its Secret's key %s gives an address", v1alpha1.ProviderAddressKey)
	}
	if provider.Spec.Type == v1alpha1.ProviderGitHub {
		return nil
	}
	u, err := url.Parse(address)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	if fromSecret {
		return fmt.Errorf("the address (spec.address, or its Secret's key %s) is not an http or https URL", v1alpha1.ProviderAddressKey)
	}
	return errors.New("spec.address is not an http or https URL")
}

func secretName(provider *v1alpha1.Provider) string {
	if provider.Spec.SecretRef == nil {
		return "(none: spec.secretRef is not set)"
	}
	return provider.Spec.SecretRef.Name
}

// bounded is a notifier whose tries end after timeout (a Provider's
// spec.timeout).
type bounded struct {
	notify.Notifier
	timeout time.Duration
}

func (b bounded) Notify(ctx context.Context, e notify.Event) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.Notifier.Notify(ctx, e)
}

// ReadSecret reads the data of provider's Secret with reader, nil when it
// names none. A Secret that is missing, or that reader may not read, is
// an error that names it (notify.Permanent: another try would not mend
// it); the data is for NotifierFor only, and kept nowhere.
func ReadSecret(ctx context.Context, reader client.Reader, provider *v1alpha1.Provider) (map[string][]byte, error) {
	if provider.Spec.SecretRef == nil {
		return nil, nil
	}
	var secret corev1.Secret
	key := client.ObjectKey{Namespace: provider.Namespace, Name: provider.Spec.SecretRef.Name}
	err := reader.Get(ctx, key, &secret)
	switch {
	case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
		return nil, notify.Permanent(fmt.Errorf("Provider %s/%s: reading its Secret %s: %w", provider.Namespace, provider.Name, key.Name, err))
	case err != nil:
		return nil, fmt.Errorf("Provider %s/%s: reading its Secret %s: %w", provider.Namespace, provider.Name, key.Name, err)
	}
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	return secret.Data, nil
}
