package localcluster

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/wavekit-dev/wavekit/config"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/testenv/clusterrun"
)

// The reference operator as the chart installs it in the local cluster.
const (
	OperatorNamespace = "wavekit-system"
	operatorRelease   = "wavekit"
	// OperatorAccount is the chart's ServiceAccount, which the operator
	// runs as.
	OperatorAccount      = "wavekit-component-operator"
	operatorKubeconfig   = "operator.kubeconfig"
	operatorLog          = "operator"
	operatorFieldManager = "wavekit-cluster"
	// operatorTokenLifetime is how long the operator's token is valid; each
	// start of the cluster requests a new one.
	operatorTokenLifetime = 365 * 24 * time.Hour
)

// Operator says how the cluster runs the reference operator.
type Operator struct {
	// Sources are the operator's --source flags, NAME=DIR with DIR
	// absolute.
	Sources []string `json:"sources,omitempty"`
	// Executable is the wavekit binary that runs it (wavekit cluster
	// operator).
	Executable string `json:"executable"`
	// Charts are the directories whose charts the operator's process
	// packages at each start and serves as a Helm repository (--charts),
	// absolute.
	Charts []string `json:"charts,omitempty"`
	// ChartsPort is the repository's port on 127.0.0.1 (--charts-port).
	ChartsPort int `json:"chartsPort,omitempty"`
	// NoDefinitions turns ComponentDefinitions off (--definitions=false):
	// by default the operator serves them, as the chart's
	// definitions.enabled does, and a cluster recorded before it did
	// serves them at its next start.
	NoDefinitions bool `json:"noDefinitions,omitempty"`
	// DefinitionGroups are the API groups definitions may define kinds in
	// (--definition-groups); empty: any group that is not Kubernetes' or
	// the operator's.
	DefinitionGroups []string `json:"definitionGroups,omitempty"`
}

// DefinitionsSummary says whether and in which groups the operator serves
// ComponentDefinitions, for create's output.
func (o *Operator) DefinitionsSummary() string {
	switch {
	case o.NoDefinitions:
		return "not served (--definitions=false): a ComponentDefinition gets no status"
	case len(o.DefinitionGroups) == 0:
		return "served, kinds in any group but Kubernetes' and the operator's"
	}
	return "served, kinds in the groups " + strings.Join(o.DefinitionGroups, ", ")
}

// OperatorLog is the file the operator logs into.
func (c *Cluster) OperatorLog() string { return c.path("logs", operatorLog+".log") }

// installOperator installs the chart's CRD and RBAC (with every right, as
// for a trial: rbac.manageEverything), waits until the CRD is served, and
// writes a kubeconfig with a token of the chart's ServiceAccount.
func (c *Cluster) installOperator(ctx context.Context, s *State, cfg *rest.Config) error {
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	objects, err := chartObjects(s.Operator.Sources)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: OperatorNamespace}}
	if err := cl.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("creating namespace %s: %w", OperatorNamespace, err)
	}
	for _, u := range objects {
		if err := cl.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(operatorFieldManager), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s of the operator's chart: %w", u.GetKind(), u.GetName(), err)
		}
	}
	if err := waitEstablished(ctx, cl, objects); err != nil {
		return err
	}
	return c.writeOperatorKubeconfig(ctx, cl, cfg)
}

// chartObjects renders the operator's chart and returns its CRDs and the
// RBAC objects of its templates.
func chartObjects(sources []string) ([]*unstructured.Unstructured, error) {
	ch, err := helm.LoadChartFS(config.Chart, "chart")
	if err != nil {
		return nil, err
	}
	var chartSources []any
	for _, source := range sources {
		name, _, _ := strings.Cut(source, "=")
		chartSources = append(chartSources, map[string]any{"name": name, "path": "/opt/sources/" + name})
	}
	if len(chartSources) == 0 { // the chart asks for one; the operator on the host takes them from flags
		chartSources = append(chartSources, map[string]any{"name": "none", "path": "/opt/sources/none"})
	}
	values := map[string]any{"sources": chartSources, "rbac": map[string]any{"manageEverything": true}}
	renderValues, err := chartutil.ToRenderValues(ch, values,
		chartutil.ReleaseOptions{Name: operatorRelease, Namespace: OperatorNamespace, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("the operator chart's values: %w", err)
	}
	files, err := engine.Render(ch, renderValues)
	if err != nil {
		return nil, fmt.Errorf("rendering the operator's chart: %w", err)
	}
	var objects []*unstructured.Unstructured
	for _, crd := range ch.CRDObjects() {
		decoded, err := manifests.DecodeObjects(crd.Filename, crd.File.Data)
		if err != nil {
			return nil, err
		}
		objects = append(objects, decoded...)
	}
	rbac := []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		decoded, err := manifests.DecodeObjects(name, []byte(files[name]))
		if err != nil || !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, u := range decoded {
			if slices.Contains(rbac, u.GetKind()) {
				objects = append(objects, u)
			}
		}
	}
	return objects, nil
}

// waitEstablished waits until every CRD of objects is established.
func waitEstablished(ctx context.Context, cl client.Client, objects []*unstructured.Unstructured) error {
	for _, u := range objects {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := cl.Get(ctx, client.ObjectKey{Name: u.GetName()}, &crd); err != nil {
				return false, nil
			}
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s to be established: %w", u.GetName(), err)
		}
	}
	return nil
}

// writeOperatorKubeconfig writes a kubeconfig of the chart's ServiceAccount,
// with a token from the TokenRequest API and no client certificate.
func (c *Cluster) writeOperatorKubeconfig(ctx context.Context, cl client.Client, cfg *rest.Config) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: OperatorNamespace, Name: OperatorAccount}}
	seconds := int64(operatorTokenLifetime.Seconds())
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	if err := cl.SubResource("token").Create(ctx, sa, request); err != nil {
		return fmt.Errorf("requesting a token of ServiceAccount %s/%s: %w", OperatorNamespace, OperatorAccount, err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[OperatorAccount] = &clientcmdapi.AuthInfo{Token: request.Status.Token}
	kc.Contexts["operator"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: OperatorAccount, Namespace: OperatorNamespace}
	kc.CurrentContext = "operator"
	if err := clientcmd.WriteToFile(*kc, c.path(operatorKubeconfig)); err != nil {
		return fmt.Errorf("writing the operator's kubeconfig: %w", err)
	}
	return nil
}

// startOperator runs `wavekit cluster operator` of the recorded executable
// as the chart's ServiceAccount, logging into OperatorLog.
func (c *Cluster) startOperator(s *State) error {
	return c.startWavekit(s, s.Operator.Executable, operatorLog, c.operatorArgs(s))
}

// startWavekit runs the wavekit binary exe with args in a session of its
// own, logging into logName.log, and records its process as logName.
func (c *Cluster) startWavekit(s *State, exe, logName string, args []string) error {
	p, err := clusterrun.Start(filepath.Base(exe), filepath.Dir(exe), c.LogDir(), args, nil,
		clusterrun.StartOptions{Detach: true, LogName: logName})
	if err != nil {
		return err
	}
	s.Processes = append(s.Processes, ProcessRecord{Name: logName, PID: p.Pid()})
	return c.writeState(s)
}

// operatorArgs are the arguments of `wavekit cluster operator`: its
// kubeconfig, sources, the charts it serves on which port, and whether it
// serves definitions in which groups.
func (c *Cluster) operatorArgs(s *State) []string {
	args := []string{"cluster", "operator", "--kubeconfig", c.path(operatorKubeconfig),
		"--definitions=" + strconv.FormatBool(!s.Operator.NoDefinitions)}
	if groups := s.Operator.DefinitionGroups; len(groups) > 0 && !s.Operator.NoDefinitions {
		args = append(args, "--definition-groups", strings.Join(groups, ","))
	}
	for _, source := range s.Operator.Sources {
		args = append(args, "--source", source)
	}
	for _, dir := range s.Operator.Charts {
		args = append(args, "--charts", dir)
	}
	if len(s.Operator.Charts) > 0 {
		args = append(args, "--charts-port", strconv.Itoa(s.Operator.ChartsPort))
	}
	return args
}

// OperatorSources checks sources (NAME=DIR) and returns them with DIR
// absolute.
func OperatorSources(sources []string) ([]string, error) {
	var out []string
	for _, source := range sources {
		name, dir, ok := strings.Cut(source, "=")
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("--source %q: give NAME=DIR", source)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--source %s: %w", source, err)
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("--source %s: %s is not a directory", source, abs)
		}
		out = append(out, name+"="+abs)
	}
	return out, nil
}
