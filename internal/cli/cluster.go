package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spf13/cobra"
)

// defaultOperatorName is the annotation prefix and field owner of the CLI.
const defaultOperatorName = "wavekit.dev"

// globalOptions are the flags every command shares.
type globalOptions struct {
	kubeconfig   string
	context      string
	namespace    string
	operatorName string
	qps          float32
	burst        int

	stdout, stderr io.Writer
}

// Client-side rate limits of the CLI. client-go's defaults (5 requests a
// second, bursts of 10) made applying 500 objects take minutes; these leave
// the pace to the API server's own priority and fairness.
const (
	defaultQPS   = 500
	defaultBurst = 1000
)

func (g *globalOptions) addFlags(cmd *cobra.Command) {
	flags := cmd.PersistentFlags()
	flags.StringVar(&g.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	flags.StringVar(&g.context, "context", "", "the kubeconfig context to use")
	flags.StringVarP(&g.namespace, "namespace", "n", "", "the release namespace (default: the context's namespace, else default)")
	flags.StringVar(&g.operatorName, "operator-name", defaultOperatorName, "prefix of the wavekit annotations and the owner label, and the field manager")
	flags.Float32Var(&g.qps, "qps", defaultQPS, "requests a second to the API server at most (0: no client-side limit)")
	flags.IntVar(&g.burst, "burst", defaultBurst, "requests in a burst above --qps at most")
}

// tune sets what the CLI's clients share: the user agent, the rate limits,
// and printing the API server's warnings, each once (as kubectl, helm and
// kapp do: an unknown field it dropped, a deprecated API).
func (g *globalOptions) tune(cfg *rest.Config) {
	cfg.UserAgent = "wavekit"
	cfg.QPS, cfg.Burst = g.qps, max(g.burst, 1)
	if g.qps <= 0 {
		cfg.QPS = -1 // client-go: no rate limiter
	}
	cfg.WarningHandler = rest.NewWarningWriter(g.stderr, rest.WarningWriterOptions{Deduplicate: true})
}

// noKubeconfig says which kubeconfig files were looked for, none of which
// exists, and how to get a cluster.
func noKubeconfig() error {
	looked := "KUBECONFIG is not set and " + clientcmd.RecommendedHomeFile + " does not exist"
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		looked = "KUBECONFIG names " + env + ", which does not exist"
	}
	return hint(errors.New("no kubeconfig found: "+looked),
		"set --kubeconfig or KUBECONFIG to a kubeconfig file, or start a local cluster with 'wavekit cluster create', which writes one")
}

// clientConfig loads the kubeconfig as kubectl does.
func (g *globalOptions) clientConfig() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = g.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: g.context}
	overrides.Context.Namespace = g.namespace
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
}

// restConfig is the kubeconfig's client configuration, or in a pod without
// one, the pod's (client-go tries it before it reports an empty
// configuration). client-go reports a missing kubeconfig as an empty one and
// suggests KUBERNETES_MASTER; restConfig says what the user can do instead.
func (g *globalOptions) restConfig() (*rest.Config, error) {
	cc := g.clientConfig()
	cfg, err := cc.ClientConfig()
	if err == nil {
		return cfg, nil
	}
	if g.kubeconfig != "" {
		if _, statErr := os.Stat(g.kubeconfig); errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("--kubeconfig %s: no such file", g.kubeconfig)
		}
	}
	if !clientcmd.IsEmptyConfig(err) {
		return nil, fmt.Errorf("no cluster configured: %w", err)
	}
	files := g.kubeconfigFiles()
	if len(files) == 0 {
		return nil, noKubeconfig()
	}
	raw, rawErr := cc.RawConfig()
	if rawErr == nil && len(raw.Contexts) > 0 {
		return nil, hint(fmt.Errorf("kubeconfig %s: no current context", strings.Join(files, ", ")),
			"pass --context with one of: "+strings.Join(slices.Sorted(maps.Keys(raw.Contexts)), ", "))
	}
	return nil, hint(fmt.Errorf("kubeconfig %s: no cluster configured", strings.Join(files, ", ")),
		"set --kubeconfig or KUBECONFIG to a kubeconfig with a cluster and a current context")
}

// kubeconfigFiles are the kubeconfig files that exist of those the client
// configuration reads: --kubeconfig, else $KUBECONFIG's, else ~/.kube/config.
func (g *globalOptions) kubeconfigFiles() []string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	candidates := rules.GetLoadingPrecedence()
	if g.kubeconfig != "" {
		candidates = []string{g.kubeconfig}
	}
	var files []string
	for _, file := range candidates {
		if _, err := os.Stat(file); err == nil {
			files = append(files, file)
		}
	}
	return files
}

// releaseNamespace is --namespace, else the context's namespace, else
// default; it needs no cluster.
func (g *globalOptions) releaseNamespace() string {
	if g.namespace != "" {
		return g.namespace
	}
	ns, _, err := g.clientConfig().Namespace()
	if err != nil || ns == "" {
		return "default"
	}
	return ns
}

// cluster is a reachable API server.
type cluster struct {
	config    *rest.Config
	client    client.Client
	discovery discovery.DiscoveryInterface
	scheme    *runtime.Scheme
	namespace string
}

// pingTimeout bounds the first request that proves the cluster is reachable.
const pingTimeout = 15 * time.Second

// connect loads the kubeconfig and checks that the API server answers.
func (g *globalOptions) connect(ctx context.Context) (*cluster, error) {
	cfg, err := g.restConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	g.tune(cfg)
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster at %s: %w", cfg.Host, unwrapURLError(err))
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster at %s: %w", cfg.Host, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := dc.RESTClient().Get().AbsPath("/version").Do(pingCtx).Error(); err != nil {
		return nil, fmt.Errorf("cannot reach the cluster at %s: %w", cfg.Host, unwrapURLError(err))
	}
	return &cluster{config: cfg, client: c, discovery: dc, scheme: scheme, namespace: g.releaseNamespace()}, nil
}

// unwrapURLError drops the request URL that Go's HTTP client puts in front of
// a connection error (the host is named already).
func unwrapURLError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the client scheme: %w", err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the client scheme: %w", err)
	}
	return scheme, nil
}
