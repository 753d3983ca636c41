package helm_test

import (
	"context"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/kube"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("a release that helm install made", func() {
	It("is taken over by a Component of the same name and namespace without recreating anything", func() {
		ctx := context.Background()
		ns := newNamespace(ctx, "installed-by-helm")
		jobs := observeJobs(ns)
		helmInstall(ctx, ns, "adm", chartDir("admission"))
		eventually(jobs.History).Should(Equal([]string{
			"created adm-admission-create", "succeeded adm-admission-create",
			"created adm-admission-patch", "succeeded adm-admission-patch",
		}), "Helm ran each hook Job to a succeeded pod before the next one")
		before := uids(ctx, ns, "adm")

		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "adm"}, Spec: v1alpha1.ComponentSpec{Source: "admission"}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyAt(ctx, c) }).Should(HavePrefix("True/Ready at 1:"))

		Expect(uids(ctx, ns, "adm")).To(Equal(before), "every object keeps its UID")
		var deployment appsv1.Deployment
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "adm"}, &deployment)).To(Succeed())
		Expect(deployment.Labels).To(HaveKeyWithValue(operatorName+"/"+manifests.LabelOwnerID,
			manifests.OwnerID("wavekit.dev", "Component", ns, "adm")), "the Component owns it now")
	})
})

// helmInstall installs a chart as `helm install NAME CHART --namespace NS
// --timeout 2m` does, with the Helm SDK's install action: Helm runs the hooks
// and waits for each hook Job to complete, which the cluster's Job
// controller does.
func helmInstall(ctx context.Context, namespace, name, dir string) {
	GinkgoHelper()
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	cfg := &action.Configuration{}
	Expect(cfg.Init(kube.GetConfig(kubeconfig, "", namespace), namespace, "secret",
		func(format string, v ...any) { GinkgoWriter.Printf(format+"\n", v...) })).To(Succeed())
	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.Timeout = name, namespace, 2*time.Minute
	chart, err := loader.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	_, err = install.RunWithContext(ctx, chart, map[string]any{})
	Expect(err).NotTo(HaveOccurred())
}

// uids returns the UIDs of the chart's objects that are not hooks.
func uids(ctx context.Context, namespace, name string) map[string]types.UID {
	GinkgoHelper()
	out := map[string]types.UID{}
	for kind, obj := range map[string]client.Object{
		"Deployment": &appsv1.Deployment{}, "ConfigMap": &corev1.ConfigMap{}, "ServiceAccount": &corev1.ServiceAccount{},
		"Service": &corev1.Service{},
	} {
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)).To(Succeed())
		out[kind] = obj.GetUID()
	}
	return out
}
