package session

import (
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
)

// defaultOperatorName is the annotation prefix and field owner of the CLI.
const defaultOperatorName = "wavekit.dev"

// Session is one run of the command line: the global flags every command
// shares (AddFlags) and where it writes.
type Session struct {
	Kubeconfig   string  // --kubeconfig
	Context      string  // --context
	Namespace    string  // -n, --namespace; ReleaseNamespace is what a command uses
	OperatorName string  // --operator-name
	QPS          float32 // --qps
	Burst        int     // --burst

	Stdout, Stderr io.Writer
}

// Client-side rate limits of the CLI. client-go's defaults (5 requests a
// second, bursts of 10) made applying 500 objects take minutes; these leave
// the pace to the API server's own priority and fairness.
const (
	defaultQPS   = 500
	defaultBurst = 1000
)

// AddFlags adds the global flags to cmd, for it and every command under it.
func (s *Session) AddFlags(cmd *cobra.Command) {
	flags := cmd.PersistentFlags()
	flags.StringVar(&s.Kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	flags.StringVar(&s.Context, "context", "", "the kubeconfig context to use")
	flags.StringVarP(&s.Namespace, "namespace", "n", "", "the release namespace (default: the context's namespace, else default)")
	flags.StringVar(&s.OperatorName, "operator-name", defaultOperatorName, "prefix of the wavekit annotations and the owner label, and the field manager")
	flags.Float32Var(&s.QPS, "qps", defaultQPS, "requests a second to the API server at most (0: no client-side limit)")
	flags.IntVar(&s.Burst, "burst", defaultBurst, "requests in a burst above --qps at most")
}

// Tune sets what the CLI's clients share: the user agent, the rate limits,
// and printing the API server's warnings, each once (as kubectl, helm and
// kapp do: an unknown field it dropped, a deprecated API).
func (s *Session) Tune(cfg *rest.Config) {
	cfg.UserAgent = "wavekit"
	cfg.QPS, cfg.Burst = s.QPS, max(s.Burst, 1)
	if s.QPS <= 0 {
		cfg.QPS = -1 // client-go: no rate limiter
	}
	cfg.WarningHandler = rest.NewWarningWriter(s.Stderr, rest.WarningWriterOptions{Deduplicate: true})
}
