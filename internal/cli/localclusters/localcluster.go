package localclusters

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/wavekit-dev/wavekit/internal/chartserve"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/localcluster"
)

// NewCommand is cluster: local clusters on this machine, created, listed and
// deleted, and the hidden verbs their processes run.
func NewCommand(s *session.Session) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Create, list and delete local clusters to try wavekit and test operators on",
		Long: `cluster keeps local Kubernetes clusters on this machine, with no container
engine: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
Nodes that kwok simulates, as processes that outlive the command. The real
controllers roll Deployments out and run Jobs; kwok moves their pods through
their phases (no container runs, no image is pulled).

The binaries are built from the Go module proxy on first use (a few minutes,
once) into wavekit's cache, or taken from --binaries or KUBEBUILDER_ASSETS.
Each cluster keeps its data, certificates and logs under
$XDG_STATE_HOME/wavekit/clusters/NAME (default ~/.local/state/...); its API
server listens on 127.0.0.1 only and takes client certificates.

A local cluster sends nothing off this machine: the API server connects to
the cluster's own addresses (webhooks, APIServices, kubelets) through an
egress gate that passes 127.0.0.0/8 and refuses everything else at once,
with a reason ("no container serves Service NS/NAME in the local cluster").
Services get addresses from 198.18.0.0/16 and pods from 198.19.0.0/16,
which no network uses.`,
		Example: `  wavekit cluster create
  kubectl get nodes
  wavekit cluster list
  wavekit cluster delete --keep    # stop it; create starts it again as it was
  wavekit cluster delete`,
	}
	cmd.AddCommand(newClusterCreateCommand(s), newClusterDeleteCommand(s), newClusterListCommand(s), newClusterKubeconfigCommand(),
		newClusterOperatorCommand(s), newClusterCloudCommand(s), newClusterEgressGateCommand(s))
	return cmd
}

func addClusterNameFlag(cmd *cobra.Command, name *string) {
	cmd.Flags().StringVar(name, "name", localcluster.DefaultName, "the cluster's name; its kubeconfig context is wavekit-NAME")
}

func newClusterCreateCommand(s *session.Session) *cobra.Command {
	var name string
	var switchContext, withOperator, definitions bool
	var sources, charts, definitionGroups []string
	var chartsPort int
	var cloud cloudFlags
	opts := localcluster.Options{}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a local cluster, or start one that exists again, and add its context to the kubeconfig",
		Long: `create starts a local cluster and waits until its Nodes are Ready, then adds
the context wavekit-NAME to the kubeconfig (--kubeconfig, else the first file
of $KUBECONFIG, else ~/.kube/config) and makes it the current one.

It also runs a simulated cloud: a default StorageClass (standard) whose
provisioner binds every claim of it, or of no class, to a volume it creates
(the Nodes are simulated: nothing is written), and an address from
127.0.0.2 upward for every Service of type LoadBalancer (nothing answers on
it). --storage=false and --load-balancers=false turn each off.

With --operator (or --source, --charts) it installs the reference operator's
CRDs and its chart's RBAC (every right, for a trial) and runs the operator on
this machine, in the background, as the chart's ServiceAccount: pods of the
cluster run no containers, so the operator cannot run in one. --source
NAME=DIR serves a directory as spec.source NAME; Components may also take
charts from repositories (spec.chart), and --charts DIR serves the chart
DIR, or every chart directly under it, as one: packaged at each start and
served by the operator's process on http://127.0.0.1:8879 (--charts-port),
with no network. The operator also serves ComponentDefinitions, kinds of
your own made of a source, in any group but Kubernetes' and its own
(--definition-groups narrows them, --definitions=false turns them off). The
operator's log is named by list.

On a cluster that exists and is stopped (delete --keep, a reboot), create
starts it again on its data and ports: what was in it is still there.`,
		Example: `  wavekit cluster create
  wavekit cluster create --operator --source web=examples/templates/web
  wavekit cluster create --charts examples/charts    # http://127.0.0.1:8879
  wavekit cluster create --name test --nodes 5 --switch-context=false`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Progress = s.Stderr
			if cmd.Flags().Changed("charts-port") && len(charts) == 0 {
				return errors.New("--charts-port: give --charts DIR too, the charts to serve on that port")
			}
			simulated, err := cloud.cloud()
			if err != nil {
				return err
			}
			opts.Cloud = simulated
			if opts.EgressGate, err = egressGate(); err != nil {
				return err
			}
			if withOperator || len(sources) > 0 || len(charts) > 0 || len(definitionGroups) > 0 {
				op, err := operatorOptions(sources, charts, chartsPort)
				if err != nil {
					return err
				}
				if op.NoDefinitions, op.DefinitionGroups, err = definitionOptions(definitions, definitionGroups); err != nil {
					return err
				}
				opts.Operator = op
			}
			return runClusterCreate(cmd, s, name, switchContext, opts)
		},
	}
	addClusterNameFlag(cmd, &name)
	cmd.Flags().IntVar(&opts.Nodes, "nodes", 0, fmt.Sprintf("Nodes that kwok simulates (default %d; a cluster that exists keeps its number)", localcluster.DefaultNodes))
	cmd.Flags().StringVar(&opts.Binaries, "binaries", "", "directory of kube-apiserver, etcd, kube-controller-manager, kube-scheduler and kwok (default: $KUBEBUILDER_ASSETS, else built once into wavekit's cache)")
	cmd.Flags().IntVar(&opts.APIServerPort, "port", 0, "port of the API server on 127.0.0.1 (default: a free one, kept across restarts)")
	cmd.Flags().BoolVar(&switchContext, "switch-context", true, "make the cluster's context the kubeconfig's current context")
	cmd.Flags().BoolVar(&withOperator, "operator", false, "install the reference operator's CRD and RBAC and run it on this machine")
	cmd.Flags().StringArrayVar(&sources, "source", nil, "with the operator: serve directory DIR as spec.source NAME, NAME=DIR (repeatable; implies --operator)")
	cmd.Flags().StringArrayVar(&charts, "charts", nil, "with the operator: package the chart DIR, or every chart directly under DIR, at each start and serve them as a Helm repository on 127.0.0.1 (repeatable; implies --operator)")
	cmd.Flags().IntVar(&chartsPort, "charts-port", chartserve.DefaultPort, "port on 127.0.0.1 of the Helm repository of --charts")
	cmd.Flags().BoolVar(&definitions, "definitions", true, "with the operator: serve ComponentDefinitions, kinds of your own made of a source (false: a ComponentDefinition gets no status)")
	cmd.Flags().StringSliceVar(&definitionGroups, "definition-groups", nil, "with the operator: the API groups definitions may define kinds in, comma-separated (default: any group but Kubernetes' and the operator's; implies --operator)")
	cloud.add(cmd)
	return cmd
}

// definitionOptions checks --definitions and --definition-groups and
// returns them as the cluster records them.
func definitionOptions(definitions bool, groups []string) (bool, []string, error) {
	if !definitions && len(groups) > 0 {
		return false, nil, errors.New("--definition-groups: the operator serves no definitions with --definitions=false; give one of the two")
	}
	return !definitions, groups, nil
}

// operatorOptions checks the sources and the directories of charts and
// finds this binary, which runs the operator.
func operatorOptions(sources, charts []string, chartsPort int) (*localcluster.Operator, error) {
	abs, err := localcluster.OperatorSources(sources)
	if err != nil {
		return nil, err
	}
	chartDirs, err := localcluster.OperatorCharts(charts)
	if err != nil {
		return nil, err
	}
	if chartsPort < 1 || chartsPort > 65535 {
		return nil, fmt.Errorf("--charts-port %d: give a port from 1 to 65535", chartsPort)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the wavekit binary, which runs the operator: %w", err)
	}
	op := &localcluster.Operator{Sources: abs, Executable: exe, Charts: chartDirs}
	if len(chartDirs) > 0 {
		op.ChartsPort = chartsPort
	}
	return op, nil
}

func runClusterCreate(cmd *cobra.Command, s *session.Session, name string, switchContext bool, opts localcluster.Options) error {
	if opts.Nodes < 0 {
		return fmt.Errorf("--nodes %d: give 1 or more", opts.Nodes)
	}
	c, err := localcluster.Named(name)
	if err != nil {
		return err
	}
	state, err := c.Start(cmd.Context(), opts)
	running := errors.Is(err, localcluster.ErrRunning)
	if err != nil && !running {
		return err
	}
	file, err := c.MergeKubeconfig(state, s.Kubeconfig, switchContext)
	if err != nil {
		return err
	}
	out := s.Stdout
	if running {
		fmt.Fprintf(out, "cluster %s was already running\n", c.Name)
	} else {
		fmt.Fprintf(out, "cluster %s is running: %d Nodes Ready\n", c.Name, state.Nodes)
	}
	printClusterWhere(out, c, state, file, switchContext)
	return nil
}

// printClusterWhere says where the cluster is and how to reach and stop it.
func printClusterWhere(out io.Writer, c *localcluster.Cluster, s *localcluster.State, kubeconfig string, current bool) {
	fmt.Fprintf(out, "  API server: %s\n", c.Server(s))
	how := ""
	if current {
		how = ", the current context"
	}
	fmt.Fprintf(out, "  kubeconfig: context %s in %s%s\n", c.ContextName(), kubeconfig, how)
	fmt.Fprintf(out, "  logs:       %s\n", c.LogDir())
	if s.EgressGate != nil {
		fmt.Fprintf(out, "  addresses:  Services %s, pods %s: the API server connects to none of them, nor off this machine (egress gate log %s)\n",
			s.ServiceRange(), s.PodRange(), c.EgressGateLog())
	}
	if s.Cloud != nil && (!s.Cloud.NoStorage || !s.Cloud.NoLoadBalancers) {
		fmt.Fprintf(out, "  cloud:      %s, log %s\n", s.Cloud.Summary(), c.CloudLog())
	}
	if s.Operator != nil {
		fmt.Fprintf(out, "  operator:   running as ServiceAccount %s/%s, log %s\n", localcluster.OperatorNamespace, localcluster.OperatorAccount, c.OperatorLog())
		for _, source := range s.Operator.Sources {
			fmt.Fprintf(out, "              source %s\n", source)
		}
		fmt.Fprintf(out, "              ComponentDefinitions %s\n", s.Operator.DefinitionsSummary())
		if url := s.Operator.ChartsURL(); url != "" {
			fmt.Fprintf(out, "  charts:     Helm repository %s (spec.chart.repository), packaged at each start from\n", url)
			for _, dir := range s.Operator.Charts {
				fmt.Fprintf(out, "              %s\n", dir)
			}
		}
	}
	flag := nameFlag(c)
	fmt.Fprintf(out, "stop it with 'wavekit cluster delete%s --keep' (create starts it again), remove it with 'wavekit cluster delete%s'\n", flag, flag)
}

func newClusterDeleteCommand(s *session.Session) *cobra.Command {
	var name string
	var keep bool
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Stop a local cluster and remove it, or only stop it with --keep",
		Long: `delete stops exactly the processes the cluster started, removes its data and
its context from the kubeconfig. With --keep it only stops the processes:
the data and the context stay, and create starts the cluster again.`,
		Example: `  wavekit cluster delete
  wavekit cluster delete --name test --keep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClusterDelete(s, name, keep)
		},
	}
	addClusterNameFlag(cmd, &name)
	cmd.Flags().BoolVar(&keep, "keep", false, "only stop the processes; keep the data and the kubeconfig context")
	return cmd
}

func runClusterDelete(s *session.Session, name string, keep bool) error {
	c, err := localcluster.Named(name)
	if err != nil {
		return err
	}
	if keep {
		if err := c.Stop(); err != nil {
			return err
		}
		fmt.Fprintf(s.Stdout, "cluster %s stopped; its data stays in %s ('wavekit cluster create%s' starts it again)\n", c.Name, c.Dir, nameFlag(c))
		return nil
	}
	deleteErr := c.Delete()
	if deleteErr != nil && !errors.Is(deleteErr, localcluster.ErrNotFound) {
		return deleteErr
	}
	file, err := c.RemoveFromKubeconfig(s.Kubeconfig)
	if err != nil {
		return err
	}
	if deleteErr != nil && file == "" {
		return deleteErr
	}
	fmt.Fprintf(s.Stdout, "cluster %s deleted\n", c.Name)
	if file != "" {
		fmt.Fprintf(s.Stdout, "  removed context %s from %s\n", c.ContextName(), file)
	}
	return nil
}

func nameFlag(c *localcluster.Cluster) string {
	if c.Name == localcluster.DefaultName {
		return ""
	}
	return " --name " + c.Name
}

func newClusterListCommand(s *session.Session) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the local clusters, whether they run, the Helm repository of --charts, and where their logs are",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			clusters, err := localcluster.List()
			if err != nil {
				return err
			}
			if len(clusters) == 0 {
				fmt.Fprintln(s.Stdout, "no local clusters (wavekit cluster create makes one)")
				return nil
			}
			t := session.NewTable(s.Stdout)
			fmt.Fprintln(t, "NAME\tSTATUS\tAPI SERVER\tNODES\tCHARTS\tLOGS")
			for _, c := range clusters {
				s, err := c.ReadState()
				if err != nil {
					return err
				}
				charts := s.Operator.ChartsURL()
				if charts == "" {
					charts = "-"
				}
				fmt.Fprintf(t, "%s\t%s\t%s\t%d\t%s\t%s\n", c.Name, clusterStatus(c, s), c.Server(s), s.Nodes, charts, c.LogDir())
			}
			return t.Flush()
		},
	}
}

// clusterStatus is running, stopped, or how many of its processes run.
func clusterStatus(c *localcluster.Cluster, s *localcluster.State) string {
	running := len(c.Running(s))
	switch {
	case running == 0:
		return "stopped"
	case running == len(s.Processes):
		return "running"
	}
	return fmt.Sprintf("partly running (%d of %d processes; create restarts it)", running, len(s.Processes))
}

func newClusterKubeconfigCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print a local cluster's kubeconfig (an administrator's client certificate)",
		Example: `  wavekit cluster kubeconfig > /tmp/wavekit.kubeconfig
  KUBECONFIG=/tmp/wavekit.kubeconfig kubectl get nodes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := localcluster.Named(name)
			if err != nil {
				return err
			}
			s, err := c.ReadState()
			if err != nil {
				return err
			}
			config, err := c.Kubeconfig(s)
			if err != nil {
				return err
			}
			data, err := clientcmd.Write(*config)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	addClusterNameFlag(cmd, &name)
	return cmd
}
