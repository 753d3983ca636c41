package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/operator"
)

// NewCommand is agent, with its verbs run and register.
func NewCommand(s *session.Session) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a pull-mode agent in a member cluster, or register one on the hub",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newRunCommand(s), newRegisterCommand(s))
	return cmd
}

type runOptions struct {
	hubKubeconfig, namespace, tokenFile string
	credentialsSecret                   string
	sources                             []string
	leaseDuration, certificateLifetime  time.Duration
	rotateAt                            float64
	metricsAddr, probeAddr              string
}

func newRunCommand(s *session.Session) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the agent of this cluster: pull its Components from the hub, run them here, report back",
		Long: `run reads the ComponentWorks of this cluster's namespace on the hub, runs each
as a Component in this cluster (--kubeconfig, or the pod's own) with the
reference operator's reconciler, and writes back to the hub what the
ComponentSets' cluster waves gate on. It only dials out to the hub, with the
kubeconfig wavekit agent register wrote, and renews its Lease and its token there.
Given a bootstrap kubeconfig (wavekit agent register --bootstrap), it requests
a client certificate with the bootstrap token, keeps it in
--credentials-secret in this cluster and renews it itself.`,
		Example: `  wavekit agent run --hub-kubeconfig hub.kubeconfig --hub-namespace fleet-east-1a2b3c4d --token-file /var/run/wavekit/token
  wavekit agent run --hub-kubeconfig bootstrap.kubeconfig --hub-namespace fleet-east-1a2b3c4d --credentials-secret wavekit-system/wavekit-agent-hub`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), s)
		},
	}
	cmd.Flags().StringVar(&o.hubKubeconfig, "hub-kubeconfig", "", "kubeconfig of the hub, with the agent's credential (wavekit agent register writes it)")
	cmd.Flags().StringVar(&o.namespace, "hub-namespace", "", "this cluster's namespace on the hub (wavekit agent register prints it)")
	cmd.Flags().StringVar(&o.tokenFile, "token-file", "", "file the agent keeps its renewed hub token in (seeded from --hub-kubeconfig when missing; default: no renewal)")
	cmd.Flags().StringVar(&o.credentialsSecret, "credentials-secret", "", "NAMESPACE/NAME of the Secret in this cluster the agent keeps its hub certificate in (needed with a bootstrap kubeconfig)")
	cmd.Flags().DurationVar(&o.certificateLifetime, "certificate-lifetime", agent.DefaultCertificateLifetime, "lifetime the agent asks its hub certificates for (at least 10m)")
	cmd.Flags().Float64Var(&o.rotateAt, "rotate-at", agent.DefaultRotateAt, "part of its credential's lifetime after which the agent renews it")
	cmd.Flags().StringArrayVar(&o.sources, "source", nil, "a source to serve to the Components here, NAME=DIR (repeatable)")
	cmd.Flags().StringVar(&o.probeAddr, "health-probe-bind-address", "0", "address of /healthz and /readyz (ready once the agent has listed its cluster's Components and its works on the hub); 0: off")
	cmd.Flags().StringVar(&o.metricsAddr, "metrics-bind-address", "0", "address of the agent's Prometheus metrics, served over HTTP (bind it to localhost or protect it with a NetworkPolicy); 0: off")
	cmd.Flags().DurationVar(&o.leaseDuration, "lease-duration", agent.DefaultLeaseDuration, "how long the hub waits for the agent's heartbeat before it counts this cluster as unreachable")
	return cmd
}

func (o *runOptions) run(ctx context.Context, s *session.Session) error {
	if o.hubKubeconfig == "" || o.namespace == "" {
		return errors.New("agent run needs --hub-kubeconfig and --hub-namespace")
	}
	hub, err := clientcmd.BuildConfigFromFlags("", o.hubKubeconfig)
	if err != nil {
		return fmt.Errorf("--hub-kubeconfig %s: %w", o.hubKubeconfig, err)
	}
	var secret client.ObjectKey
	if o.credentialsSecret != "" {
		ns, name, ok := strings.Cut(o.credentialsSecret, "/")
		if !ok || ns == "" || name == "" {
			return fmt.Errorf("--credentials-secret %q: give NAMESPACE/NAME", o.credentialsSecret)
		}
		secret = client.ObjectKey{Namespace: ns, Name: name}
	}
	if !register.IsBootstrapToken(hub.BearerToken) {
		if err := seedToken(o.tokenFile, hub); err != nil {
			return err
		}
	}
	local, err := s.ClientConfig().ClientConfig()
	if err != nil {
		return fmt.Errorf("this cluster's kubeconfig: %w", err)
	}
	sources, err := operator.ParseSources(o.sources)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(s.Stderr)))
	return agent.Run(ctx, agent.Options{Hub: hub, Namespace: o.namespace, Local: local, TokenFile: o.tokenFile,
		CredentialsSecret: secret, CertificateLifetime: o.certificateLifetime, RotateAt: o.rotateAt,
		LeaseDuration: o.leaseDuration, MetricsAddr: o.metricsAddr, ProbeAddr: o.probeAddr, Operator: operator.Options{Name: s.OperatorName, Sources: sources}})
}

// seedToken writes the hub kubeconfig's token to file when file is given
// and does not exist yet.
func seedToken(file string, hub *rest.Config) error {
	if file == "" {
		return nil
	}
	if _, err := os.Stat(file); err == nil {
		return nil
	}
	if hub.BearerToken == "" {
		return fmt.Errorf("--token-file %s does not exist and --hub-kubeconfig has no token to start it with", file)
	}
	if err := os.WriteFile(file, []byte(hub.BearerToken), 0o600); err != nil {
		return fmt.Errorf("--token-file: %w", err)
	}
	return nil
}

type registerOptions struct {
	labels       []string
	lifetime     time.Duration
	output       string
	server       string
	bootstrap    bool
	bootstrapTTL time.Duration
}

func newRegisterCommand(s *session.Session) *cobra.Command {
	o := &registerOptions{}
	cmd := &cobra.Command{
		Use:   "register NAMESPACE/CLUSTER",
		Short: "Register a pulled cluster on the hub and write the kubeconfig its agent reaches the hub with",
		Long: `register, run against the hub, makes the cluster's namespace on the hub, its
agent's ServiceAccount and the Role that lets it read only that namespace's
ComponentWorks, write only their status, renew its Lease and its own token;
and the cluster Secret in NAMESPACE, labelled as a pulled cluster with
--label, that ComponentSets of NAMESPACE select. It holds no credential of the
cluster. The agent's kubeconfig (the hub's address and CA, and a token of
--token-lifetime) goes to --output; the cluster's namespace on the hub is printed.
With --bootstrap the kubeconfig holds a bootstrap token instead, valid for
--bootstrap-ttl, that may only request the agent's client certificate, which
the operator on the hub approves for this cluster's identity alone.`,
		Example: `  wavekit agent register fleet/east -l region=eu -l wave=canary -o east-hub.kubeconfig
  wavekit agent register fleet/east -l wave=main --bootstrap -o east-bootstrap.kubeconfig`,
		Args: session.ExactArgs("NAMESPACE/CLUSTER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), s, args[0])
		},
	}
	cmd.Flags().StringArrayVarP(&o.labels, "label", "l", nil, "a label of the cluster, KEY=VALUE (repeatable)")
	cmd.Flags().DurationVar(&o.lifetime, "token-lifetime", 24*time.Hour, "lifetime of the agent's first token (it renews its tokens itself)")
	cmd.Flags().BoolVar(&o.bootstrap, "bootstrap", false, "write a bootstrap kubeconfig: the agent registers by certificate with its token")
	cmd.Flags().DurationVar(&o.bootstrapTTL, "bootstrap-ttl", time.Hour, "how long the bootstrap token of --bootstrap is valid")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write the agent's hub kubeconfig to (required)")
	cmd.Flags().StringVar(&o.server, "server", "", "the hub's address as the agent reaches it (default: the one of --kubeconfig)")
	return cmd
}

func (o *registerOptions) run(ctx context.Context, s *session.Session, ref string) error {
	namespace, name, ok := strings.Cut(ref, "/")
	if !ok || namespace == "" || name == "" {
		return fmt.Errorf("register %q: give NAMESPACE/CLUSTER", ref)
	}
	if o.output == "" {
		return errors.New("register needs --output, the file of the agent's kubeconfig")
	}
	labels := map[string]string{}
	for _, l := range o.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return fmt.Errorf("--label %q: give KEY=VALUE", l)
		}
		labels[k] = v
	}
	cfg, err := s.RESTConfig()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme)); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("connecting to the hub: %w", err)
	}
	ns, err := register.Register(ctx, c, register.Cluster{Operator: s.OperatorName, Namespace: namespace, Name: name, Labels: labels})
	if err != nil {
		return err
	}
	credential, err := o.credential(ctx, c, cfg, ns)
	if err != nil {
		return err
	}
	if o.server != "" {
		credential.Host = o.server
	}
	if err := writeKubeconfig(o.output, credential); err != nil {
		return err
	}
	keep := "--token-file FILE"
	if o.bootstrap {
		keep = "--credentials-secret NAMESPACE/NAME"
	}
	_, err = fmt.Fprintf(s.Stdout, "registered cluster %s/%s: its namespace on the hub is %s; its agent's kubeconfig is in %s\n"+
		"run in the cluster: wavekit agent run --hub-kubeconfig %s --hub-namespace %s %s\n", namespace, name, ns, o.output, o.output, ns, keep)
	return err
}

// credential is the agent's first credential: a token of its
// ServiceAccount, or with --bootstrap a bootstrap token.
func (o *registerOptions) credential(ctx context.Context, c client.Client, cfg *rest.Config, ns string) (*rest.Config, error) {
	if o.bootstrap {
		return register.Bootstrap(ctx, c, cfg, ns, o.bootstrapTTL)
	}
	return register.Credential(ctx, c, cfg, ns, o.lifetime)
}

// writeKubeconfig writes a kubeconfig of cfg's address, CA and token, and
// nothing else, readable by its owner only.
func writeKubeconfig(file string, cfg *rest.Config) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["hub"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	config.AuthInfos["agent"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	config.Contexts["hub"] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: "agent"}
	config.CurrentContext = "hub"
	data, err := clientcmd.Write(*config)
	if err != nil {
		return fmt.Errorf("encoding the agent's kubeconfig: %w", err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return fmt.Errorf("writing the agent's kubeconfig: %w", err)
	}
	return nil
}
