package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/testenv/clusterrun"
	"github.com/wavekit-dev/wavekit/pkg/testenv/egress"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// startTimeout bounds each step of a start: etcd, the API server, the Nodes.
const startTimeout = 2 * time.Minute

// Options say how to create a cluster.
type Options struct {
	// Binaries is the directory of the binaries (k8sbin.Dir finds or builds
	// them when empty).
	Binaries string
	// Nodes is the number of Nodes (DefaultNodes when 0; on a cluster that
	// exists, 0 keeps its number).
	Nodes int
	// APIServerPort is the port of a new cluster's API server (a free one
	// when 0).
	APIServerPort int
	// Operator, when set, installs the reference operator's CRD and RBAC
	// and runs it on the host (on a cluster that exists, it replaces how
	// the operator runs).
	Operator *Operator
	// Cloud, when set, runs the simulated cloud (on a cluster that exists,
	// it replaces how the cloud runs).
	Cloud *Cloud
	// EgressGate, when set, runs the egress gate (on a cluster that exists,
	// it replaces how the gate runs). Without one kube-apiserver reaches
	// none of the cluster's addresses, and says only that the socket is
	// missing.
	EgressGate *EgressGate
	// Progress receives what the start does.
	Progress io.Writer
}

// ErrRunning is returned by Start for a cluster whose processes all run.
var ErrRunning = errors.New("the cluster is running")

// Start creates the cluster, or starts a cluster that exists again on its
// data and ports, and waits until its Nodes are Ready. A cluster whose
// processes all run is left alone (the error wraps ErrRunning); one of which
// only some run has those stopped first.
func (c *Cluster) Start(ctx context.Context, opts Options) (*State, error) {
	s, err := c.ReadState()
	created := errors.Is(err, ErrNotFound)
	switch {
	case created:
		if s, err = c.create(opts); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if running := c.Running(s); len(running) == len(s.Processes) && len(running) > 0 {
			return s, fmt.Errorf("%w: %s", ErrRunning, c.Name)
		}
		if err := c.stopRecorded(s); err != nil {
			return nil, err
		}
		s.update(opts)
	}
	if err := c.run(ctx, s, opts.Progress); err != nil {
		stopped := c.stopRecorded(s)
		if created && stopped == nil { // a cluster that never ran leaves nothing behind
			stopped = os.RemoveAll(c.Dir)
		}
		return nil, errors.Join(err, stopped)
	}
	return s, nil
}

// update takes into the record of a cluster that exists what opts
// changes: its Nodes, binaries, operator, cloud and egress gate. Its ports
// and address ranges stay.
func (s *State) update(opts Options) {
	if opts.Nodes > 0 {
		s.Nodes = opts.Nodes
	}
	if opts.Binaries != "" {
		s.Binaries = opts.Binaries
	}
	if opts.Operator != nil {
		s.Operator = opts.Operator
	}
	if opts.Cloud != nil {
		s.Cloud = opts.Cloud
	}
	if opts.EgressGate != nil {
		s.EgressGate = opts.EgressGate
	}
}

// create makes the cluster's directory, certificates and record.
func (c *Cluster) create(opts Options) (*State, error) {
	binaries := opts.Binaries
	if binaries == "" {
		dir, err := k8sbin.Dir(opts.Progress)
		if err != nil {
			return nil, err
		}
		binaries = dir
	}
	if err := k8sbin.Check(binaries, k8sbin.All...); err != nil {
		return nil, err
	}
	s := &State{Binaries: binaries, Nodes: opts.Nodes, APIServerPort: opts.APIServerPort, Operator: opts.Operator, Cloud: opts.Cloud,
		EgressGate: opts.EgressGate, ServiceCIDR: clusterrun.ServiceRange, PodCIDR: clusterrun.PodRange}
	if s.Nodes == 0 {
		s.Nodes = DefaultNodes
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	if s.APIServerPort == 0 {
		s.APIServerPort = ports[0]
	}
	s.EtcdPort, s.EtcdPeerPort = ports[1], ports[2]
	for _, dir := range []string{c.Dir, c.LogDir(), c.path("etcd"), c.path("kwok")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	kubernetesIP, err := firstAddress(s.ServiceRange())
	if err != nil {
		return nil, err
	}
	if err := writePKI(c.path("pki"), kubernetesIP); err != nil {
		return nil, errors.Join(err, os.RemoveAll(c.Dir))
	}
	if err := c.writeState(s); err != nil {
		return nil, errors.Join(err, os.RemoveAll(c.Dir))
	}
	return s, nil
}

// freePorts returns n ports on 127.0.0.1 that nothing listens on now.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// checkPortsFree returns an error naming the first of the cluster's ports
// that another program listens on.
func checkPortsFree(s *State) error {
	for _, p := range []struct {
		what string
		port int
	}{{"the API server", s.APIServerPort}, {"etcd", s.EtcdPort}, {"etcd's peers", s.EtcdPeerPort}} {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p.port))
		if err != nil {
			return fmt.Errorf("port %d on 127.0.0.1, which %s of this cluster uses, is taken by another program: stop it, "+
				"or delete the cluster and create it again (a new cluster gets free ports): %w", p.port, p.what, err)
		}
		_ = l.Close()
	}
	return nil
}

// run starts etcd, the API server and the other parts, recording each
// process as it starts, and waits for the Nodes.
func (c *Cluster) run(ctx context.Context, s *State, progress io.Writer) error {
	if err := checkPortsFree(s); err != nil {
		return err
	}
	if err := checkCharts(s); err != nil {
		return err
	}
	if err := writeAdminKubeconfig(c, s); err != nil {
		return err
	}
	cfg, err := c.adminConfig()
	if err != nil {
		return err
	}
	say(progress, "starting etcd, the egress gate and kube-apiserver on 127.0.0.1:%d", s.APIServerPort)
	if err := c.startPart(s, "etcd", c.etcdArgs(s)); err != nil {
		return err
	}
	if err := c.startEgressGate(ctx, s); err != nil {
		return err
	}
	if err := c.startPart(s, "kube-apiserver", c.apiServerArgs(s)); err != nil {
		return err
	}
	if err := c.waitAPIServer(ctx, s, cfg); err != nil {
		return err
	}
	say(progress, "starting kube-controller-manager, kube-scheduler and kwok with %d Nodes", s.Nodes)
	parts, err := clusterrun.Parts(clusterrun.Files{
		Kubeconfig: c.path(adminKubeconfigFile), CAFile: c.path("pki", caCertFile),
		SigningKey: c.path("pki", saKeyFile), Dir: c.path("kwok"), PodRange: s.PodRange(),
		ClientCAFile: c.path("pki", caCertFile), ClientCAKey: c.path("pki", caKeyFile),
	})
	if err != nil {
		return err
	}
	for _, part := range parts {
		if err := c.startPart(s, part.Name, part.Args, part.Env...); err != nil {
			return err
		}
	}
	if err := c.waitNodes(ctx, s, cfg); err != nil {
		return err
	}
	if s.Cloud.runs() {
		say(progress, "starting the simulated cloud: %s", s.Cloud.Summary())
		if err := c.startCloud(ctx, s, cfg); err != nil {
			return err
		}
	}
	if s.Operator == nil {
		return nil
	}
	say(progress, "installing the reference operator's CRD and RBAC, and running it as ServiceAccount %s/%s", OperatorNamespace, OperatorAccount)
	if err := c.installOperator(ctx, s, cfg); err != nil {
		return err
	}
	if err := c.startOperator(s); err != nil {
		return err
	}
	return c.waitCharts(ctx, s)
}

// startPart starts a binary of the cluster in a session of its own and
// records its process.
func (c *Cluster) startPart(s *State, name string, args []string, env ...string) error {
	p, err := clusterrun.Start(name, s.Binaries, c.LogDir(), args, env, clusterrun.StartOptions{Detach: true})
	if err != nil {
		return err
	}
	s.Processes = append(s.Processes, ProcessRecord{Name: name, PID: p.Pid()})
	return c.writeState(s)
}

func (c *Cluster) etcdArgs(s *State) []string {
	client := "http://127.0.0.1:" + strconv.Itoa(s.EtcdPort)
	return []string{
		"--name=" + c.Name,
		"--data-dir=" + c.path("etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(s.EtcdPeerPort),
		"--initial-advertise-peer-urls=http://127.0.0.1:" + strconv.Itoa(s.EtcdPeerPort),
		"--initial-cluster=" + c.Name + "=http://127.0.0.1:" + strconv.Itoa(s.EtcdPeerPort),
		"--listen-metrics-urls=",
	}
}

func (c *Cluster) apiServerArgs(s *State) []string {
	pki := c.path("pki")
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(s.EtcdPort),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(s.APIServerPort),
		"--cert-dir=" + pki,
		"--tls-cert-file=" + pki + "/" + serverCertFile,
		"--tls-private-key-file=" + pki + "/" + serverKeyFile,
		"--client-ca-file=" + pki + "/" + caCertFile,
		"--enable-bootstrap-token-auth=true",
		"--anonymous-auth=false",
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		"--service-cluster-ip-range=" + s.ServiceRange(),
		"--" + egress.Flag + "=" + c.path(egress.ConfigFile),
		"--service-account-issuer=https://127.0.0.1:" + strconv.Itoa(s.APIServerPort),
		"--service-account-key-file=" + pki + "/" + saKeyFile,
		"--service-account-signing-key-file=" + pki + "/" + saKeyFile,
	}
}

// waitAPIServer waits until the API server answers /readyz, or a process of
// the cluster has exited.
func (c *Cluster) waitAPIServer(ctx context.Context, s *State, cfg *rest.Config) error {
	rc, err := rest.UnversionedRESTClientFor(withCodec(cfg))
	if err != nil {
		return err
	}
	return c.waitUntil(ctx, s, "kube-apiserver was not ready", c.path("logs", "kube-apiserver.log"),
		func(ctx context.Context) error { return rc.Get().AbsPath("/readyz").Do(ctx).Error() })
}

// waitUntil calls check every 250ms until it returns nil, a process of the
// cluster has exited (that error is returned), or startTimeout has passed:
// then the error says what was not done in time, check's last error and
// which log to read.
func (c *Cluster) waitUntil(ctx context.Context, s *State, notDone, log string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	last := ctx.Err()
	for ctx.Err() == nil {
		if err := c.exited(s); err != nil {
			return err
		}
		if last = check(ctx); last == nil {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("%s within %s (%w); its log: %s", notDone, startTimeout, last, log)
}

// waitNodes creates the Nodes and waits until they are Ready.
func (c *Cluster) waitNodes(ctx context.Context, s *State, cfg *rest.Config) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return fmt.Errorf("creating a client of cluster %s: %w", c.Name, err)
	}
	if err := clusterrun.CreateNodes(ctx, cl, clusterrun.NodeNames(s.Nodes), func() error { return c.exited(s) }); err != nil {
		return fmt.Errorf("starting cluster %s (logs in %s): %w", c.Name, c.LogDir(), err)
	}
	return nil
}

// exited returns an error for the first recorded process that no longer
// runs, with the end of its log.
func (c *Cluster) exited(s *State) error {
	for _, p := range s.Processes {
		if !c.owns(p) {
			log := c.path("logs", p.Name+".log")
			return fmt.Errorf("%s exited; the end of %s:\n%s", p.Name, log, clusterrun.Tail(log))
		}
	}
	return nil
}

func say(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
