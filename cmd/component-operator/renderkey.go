package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// checkRenderKey checks --render-key-secret, [NAMESPACE/]NAME.
func checkRenderKey(value string) error {
	if value == "" {
		return nil
	}
	ns, name, found := strings.Cut(value, "/")
	if !found {
		ns, name = "", value
	}
	if (found && len(validation.IsDNS1123Label(ns)) > 0) || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return fmt.Errorf("--render-key-secret %q: give [NAMESPACE/]NAME of a Secret", value)
	}
	return nil
}

// renderKey is the Secret of the keys that seal kept renders:
// --render-key-secret, whose namespace is by default the operator's own —
// its pod's, else that of the ServiceAccount it runs as (a SelfSubjectReview
// tells), else "default" — and whose name is by default
// <operator name>-render-key.
func renderKey(cfg *rest.Config, value, operatorName string) types.NamespacedName {
	key := component.DefaultRenderKey(operatorName)
	ns, name, found := strings.Cut(value, "/")
	switch {
	case found:
		return types.NamespacedName{Namespace: ns, Name: name}
	case value != "":
		key.Name = value
	}
	if _, inPod := os.LookupEnv("POD_NAMESPACE"); inPod {
		return key
	}
	if _, err := os.Stat(podNamespaceFile); err == nil {
		return key
	}
	if sa := serviceAccountNamespace(cfg); sa != "" {
		key.Namespace = sa
	}
	return key
}

// serviceAccountNamespace is the namespace of the ServiceAccount cfg
// authenticates as, "" when it is no ServiceAccount or the API server does
// not say.
func serviceAccountNamespace(cfg *rest.Config) string {
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	review, err := clientset.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return ""
	}
	sa, ok := strings.CutPrefix(review.Status.UserInfo.Username, "system:serviceaccount:")
	if !ok {
		return ""
	}
	ns, _, _ := strings.Cut(sa, ":")
	return ns
}
