package session

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// noKubeconfig says which kubeconfig files were looked for, none of which
// exists, and how to get a cluster.
func noKubeconfig() error {
	looked := "KUBECONFIG is not set and " + clientcmd.RecommendedHomeFile + " does not exist"
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		looked = "KUBECONFIG names " + env + ", which does not exist"
	}
	return Hint(errors.New("no kubeconfig found: "+looked),
		"set --kubeconfig or KUBECONFIG to a kubeconfig file, or start a local cluster with 'wavekit cluster create', which writes one")
}

// ClientConfig loads the kubeconfig as kubectl does.
func (s *Session) ClientConfig() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = s.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: s.Context}
	overrides.Context.Namespace = s.Namespace
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
}

// RESTConfig is the kubeconfig's client configuration, or in a pod without
// one, the pod's (client-go tries it before it reports an empty
// configuration). client-go reports a missing kubeconfig as an empty one and
// suggests KUBERNETES_MASTER; restConfig says what the user can do instead.
func (s *Session) RESTConfig() (*rest.Config, error) {
	cc := s.ClientConfig()
	cfg, err := cc.ClientConfig()
	if err == nil {
		return cfg, nil
	}
	if s.Kubeconfig != "" {
		if _, statErr := os.Stat(s.Kubeconfig); errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("--kubeconfig %s: no such file", s.Kubeconfig)
		}
	}
	if !clientcmd.IsEmptyConfig(err) {
		return nil, fmt.Errorf("no cluster configured: %w", err)
	}
	files := s.KubeconfigFiles()
	if len(files) == 0 {
		return nil, noKubeconfig()
	}
	raw, rawErr := cc.RawConfig()
	if rawErr == nil && len(raw.Contexts) > 0 {
		return nil, Hint(fmt.Errorf("kubeconfig %s: no current context", strings.Join(files, ", ")),
			"pass --context with one of: "+strings.Join(slices.Sorted(maps.Keys(raw.Contexts)), ", "))
	}
	return nil, Hint(fmt.Errorf("kubeconfig %s: no cluster configured", strings.Join(files, ", ")),
		"set --kubeconfig or KUBECONFIG to a kubeconfig with a cluster and a current context")
}

// KubeconfigFiles are the kubeconfig files that exist of those the client
// configuration reads: --kubeconfig, else $KUBECONFIG's, else ~/.kube/config.
func (s *Session) KubeconfigFiles() []string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	candidates := rules.GetLoadingPrecedence()
	if s.Kubeconfig != "" {
		candidates = []string{s.Kubeconfig}
	}
	var files []string
	for _, file := range candidates {
		if _, err := os.Stat(file); err == nil {
			files = append(files, file)
		}
	}
	return files
}

// ReleaseNamespace is --namespace, else the context's namespace, else
// default; it needs no cluster.
func (s *Session) ReleaseNamespace() string {
	if s.Namespace != "" {
		return s.Namespace
	}
	ns, _, err := s.ClientConfig().Namespace()
	if err != nil || ns == "" {
		return "default"
	}
	return ns
}
