package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	// Root certificates for when the system has none: the image is built
	// on an empty base, and the operator fetches charts over HTTPS.
	_ "golang.org/x/crypto/x509roots/fallback"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent/approve"
	"github.com/wavekit-dev/wavekit/internal/errlines"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/receiver"
	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/rewatch"
	"github.com/wavekit-dev/wavekit/pkg/tracing"
)

// splitList splits a comma-separated flag value; "" is an empty list.
func splitList(value string) []string {
	list := []string{}
	for _, item := range strings.Split(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	return list
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// gcPercent is the operator's GOGC unless the environment sets one. Go's
// default, 100, lets the heap grow to twice what is live before it collects;
// at 50 a burst of first applies peaked about an eighth lower (make bench:
// 105 instead of 121 MiB for 1000 components x 4 objects, 101 instead of
// 114 MiB for 2000 objects) at the same speed.
const gcPercent = 50

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if err := run(); err != nil {
		errlines.Write(os.Stderr, "component-operator: ", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		name, metricsAddr, probeAddr, pprofAddr, watchNamespaces, leaderNamespace string
		leaderElect                                                               bool
		sources                                                                   stringList
	)
	flag.StringVar(&name, "operator-name", "wavekit.dev", "operator name: annotation prefix, field owner and finalizer")
	flag.Var(&sources, "source", "a source to serve, NAME=DIR (repeatable); DIR holds a Helm chart, a kustomization or Go templates")
	var allowedSources stringList
	flag.Var(&allowedSources, "allowed-sources", "a glob of the source URLs Components may use (repeatable): Helm repositories, OCI charts (oci://host/path/name), Flux sources' URLs, Git repositories (spec.git.url, Git valuesFrom, submodules, redirects: https://host/org/**, ssh://git@host/**); * matches within a path segment, ** across, ! denies; a source is allowed when some pattern allows it and none denies it (default: every source; a Namespace's <operator-name>/allowed-sources annotation narrows it)")
	var cacheDir string
	var cacheSize int64
	flag.StringVar(&cacheDir, "source-cache-dir", "", "directory of the charts and artifacts fetched for spec.chart and spec.sourceRef (default: $TMPDIR/wavekit-sources)")
	flag.Int64Var(&cacheSize, "source-cache-size", operator.DefaultCacheMaxBytes, "bytes the source cache may take; the least recently used sources are removed beyond it")
	var chartMaxSize int64
	flag.Int64Var(&chartMaxSize, "chart-max-size", fetch.DefaultMaxSize, "bytes one download of a chart, a chart dependency, a repository index or a Flux artifact may take (and an artifact's extracted content)")
	var gitOpts operator.GitOptions
	flag.Int64Var(&gitOpts.MaxSize, "git-max-size", git.DefaultMaxSize, "bytes of pack one fetch of a Git repository may receive, and of files one checkout may write")
	flag.Int64Var(&gitOpts.MaxObjectSize, "git-max-object-size", git.DefaultMaxObjectSize, "bytes one object of a Git fetch may inflate to (a file; go-git holds it in memory while it indexes the pack)")
	flag.IntVar(&gitOpts.HostConcurrency, "git-host-concurrency", git.DefaultHostConcurrency, "looks and fetches of Git repositories under way at once per host")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "", "address of the metrics endpoint (default :8443, or :8080 with --metrics-secure=false; 0 turns it off)")
	metrics := bindMetricsFlags(flag.CommandLine)
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	webAddr := flag.String("web-bind-address", "", "address of the status page, for viewers with a Kubernetes token or, with --web-oidc-issuer-url, signed in (default: off)")
	web := bindWebFlags(flag.CommandLine)
	receiverAddr := flag.String("receiver-bind-address", "", "address of the webhook receiver, which takes the webhooks of the Receivers' paths (GitHub, GitLab, Harbor, generic HMAC) and asks for a reconcile of what they name (default: off)")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "", "address of Go's /debug/pprof profiles, for diagnosing CPU and memory use (default: off; bind it to localhost)")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader, for more than one replica")
	flag.StringVar(&leaderNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default: the pod's namespace; required outside a pod)")
	identity := flag.String("leader-election-identity", "", "identity the replica holds the Lease under, unique to it and kept across its restarts, so that a replica that lost the Lease while the API server was away takes it back at once (default: $POD_NAME; without it, the host name and a new UUID at every start)")
	flag.StringVar(&watchNamespaces, "watch-namespaces", "", "comma-separated namespaces to watch Components in (empty: all)")
	shard := bindShardFlags(flag.CommandLine)
	definitions := bindDefinitionFlags(flag.CommandLine)
	var reconciler component.ReconcilerOptions
	flag.IntVar(&reconciler.MaxConcurrentReconciles, "concurrent", component.DefaultMaxConcurrentReconciles, "Components reconciled at once")
	flag.StringVar(&reconciler.DefaultServiceAccount, "default-service-account", "", "multi-tenant lockdown: apply every Component that names no service account as this service account of its own namespace")
	flag.BoolVar(&reconciler.NoCrossNamespaceRefs, "no-cross-namespace-refs", false, "refuse Components whose spec.namespace, spec.sourceRef.namespace or spec.dependsOn[].namespace is not their own namespace")
	flag.BoolVar(&reconciler.InsecureKubeConfigExec, "insecure-kubeconfig-exec", false, "allow kubeconfigs from Secrets to use exec and auth-provider users (they run code in the operator)")
	renderKeySecret := flag.String("render-key-secret", "", "[NAMESPACE/]NAME of the Secret of the keys that seal each Component's kept renders, created on first start (default: <operator-name>-render-key in the operator's own namespace: its pod's, else its ServiceAccount's)")
	takeOver := flag.String("take-over-managers", strings.Join(engine.DefaultTakeOverManagers, ","),
		"comma-separated field managers whose fields the default update policy (ssa-override) takes over, so that the next apply removes what the component does not render (empty: none)")
	zapOpts := zap.Options{}
	bindExternalFlags(flag.CommandLine, &reconciler)
	traces := bindTracingFlags(flag.CommandLine)
	alertOpts := bindAlertFlags(flag.CommandLine)
	zapOpts.BindFlags(flag.CommandLine)
	logFormat := bindLogFormatFlag(flag.CommandLine)
	apiCompression := flag.Bool("api-compression", false, "ask the API server for gzip-compressed responses: fewer bytes on the wire, for more CPU on both ends and about 110 KiB of the operator's memory for each watch while it lasts (one a served kind); off, as kubectl's --disable-compression, for a cluster's own network")
	priorityQueue := flag.Bool("priority-queue", true, "serve a Component whose spec or objects changed before the passes of a restart's catch-up and of requeues (controller-runtime's priority queue); false: one queue in arrival order")
	componentSets := flag.Bool("component-sets", true, "run the ComponentSet controller, which places one Component on each selected cluster and rolls templates out in cluster waves")
	printVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *printVersion {
		_, err := fmt.Println("component-operator", version.String())
		return err
	}
	// Every flag is checked before the operator connects to a cluster.
	var problems []error
	if err := manifests.CheckOperatorName(name); err != nil {
		problems = append(problems, fmt.Errorf("--operator-name: %w", err))
	}
	if reconciler.MaxConcurrentReconciles < 1 {
		problems = append(problems, fmt.Errorf("--concurrent %d: give at least 1", reconciler.MaxConcurrentReconciles))
	}
	selector, err := shard.componentSelector(name)
	problems = append(problems, err)
	parsed, err := operator.ParseSources(sources)
	problems = append(problems, err, operator.CheckSources(name, parsed))
	problems = append(problems, operator.CheckAllowedSources(allowedSources))
	problems = append(problems, checkNamespaces(watchNamespaces), checkLeaderElection(leaderElect, leaderNamespace))
	problems = append(problems, traces.check(), alertOpts.check(), applyLogFormat(*logFormat, &zapOpts), checkRenderKey(*renderKeySecret))
	if err := errors.Join(problems...); err != nil {
		return err
	}
	reconciler.Selector = selector
	// The target caches of the operator's own identity watch where its
	// Roles are (the chart's watchNamespaces), not the whole cluster.
	reconciler.Namespaces = splitList(watchNamespaces)
	reconciler.TakeOver = splitList(*takeOver)
	reconciler.DependentLabels = component.ShardLabels(name, shard.key)
	capLogVerbosity(&zapOpts)
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	tp, stopTracing, err := tracing.New(context.Background(), traces.config())
	if err != nil {
		return err
	}
	defer flushTraces(stopTracing)
	reconciler.TracerProvider = tp

	scheme := runtime.NewScheme()
	if err := addToScheme(scheme); err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if clientcmd.IsEmptyConfig(err) {
		return errors.New("no kubeconfig found and not in a pod: set --kubeconfig or KUBECONFIG, or run the operator in a pod")
	}
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	if err := checkServed(cfg); err != nil {
		return err
	}
	reconciler.RenderKey = renderKey(cfg, *renderKeySecret, name)
	// A watch's responses, gzipped, hold a decompressor for the watch's
	// life: 7 MB of 64 watches, for 50 served kinds.
	cfg.DisableCompression = !*apiCompression
	// Informers that outlast kube-apiserver's restarts (pkg/rewatch).
	cfg = rewatch.Config(cfg)
	var lock resourcelock.Interface
	if id := leaderIdentity(*identity); leaderElect && id != "" {
		if lock, err = leaderLock(cfg, leaderNamespace, shard.leaseName(name), id); err != nil {
			return err
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics.options(metricsAddr),
		HealthProbeBindAddress:  probeAddr,
		PprofBindAddress:        pprofAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        shard.leaseName(name),
		LeaderElectionNamespace: leaderNamespace,
		// A Lease kept under the replica's own identity (leader.go).
		LeaderElectionResourceLockInterface: lock,
		Controller:                          config.Controller{UsePriorityQueue: priorityQueue},
		// Only this shard's Components, without managedFields (no decision reads them).
		// Of Leases, only the pulled clusters' agents' (fleet.CacheFor); of
		// certificate requests, only those of the agents' signer (approve.CacheFor).
		Cache: rewatch.CacheOptions(cfg, scheme, approve.CacheFor(fleet.CacheFor(definitions.cacheFor(name, component.CacheFor(&v1alpha1.Component{}, selector,
			cache.Options{DefaultNamespaces: namespaces(watchNamespaces), DefaultTransform: cache.TransformStripManagedFields()}))))),
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	sink, err := alertOpts.setup(mgr, name, reconciler.DefaultServiceAccount)
	if err != nil {
		return err
	}
	reconciler.Notifier, reconciler.WaveHeldAfter = sink, alertOpts.waveHeldAfter
	r, definitionSources, err := operator.SetupWithSources(mgr, operator.Options{Name: name, Sources: parsed, CacheDir: cacheDir, CacheMaxBytes: cacheSize, ChartMaxBytes: chartMaxSize, Reconciler: reconciler, Git: gitOpts,
		AllowedSources: allowedSources})
	if err != nil {
		return err
	}
	if err := definitions.setup(mgr, name, definitionSources, reconciler, shard, sink); err != nil {
		return err
	}
	watched := namespaces(watchNamespaces) // nil: all
	if *componentSets {
		if err := fleet.Setup(mgr, name, sink, watched, fleet.WithInputs(definitionSources.SetInputs().Reader(mgr.GetAPIReader()))); err != nil {
			return err
		}
		if err := setupAgentApprover(mgr, name); err != nil {
			return err
		}
	}
	if err := receiver.Setup(mgr, name, *receiverAddr, watched); err != nil {
		return err
	}
	if err := addDashboard(mgr, *webAddr, name, *componentSets, definitions.enabled, web); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informers", operator.CacheSynced(mgr.GetCache(), &v1alpha1.Component{})); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("workers", r.ReadyzCheck); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("watches", rewatch.Ready(cfg.Host)); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// flushTraces sends the spans not sent yet, within a few seconds, as the
// operator stops.
func flushTraces(stop tracing.Shutdown) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		ctrl.Log.Error(err, "sending the last traces")
	}
}

func namespaces(list string) map[string]cache.Config {
	if list == "" {
		return nil
	}
	out := map[string]cache.Config{}
	for _, ns := range strings.Split(list, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out[ns] = cache.Config{}
		}
	}
	return out
}
