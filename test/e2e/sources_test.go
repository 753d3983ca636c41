package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The operator takes Components from Helm repositories, OCI registries and
// Flux sources, with valuesFrom, dependsOn and patches. It runs as its own
// process with the chart's RBAC. Flux's source-controller does not run here:
// its CRDs are installed and the test plays the controller, writing
// status.artifact for a tarball it serves.
var _ = Describe("Components from repositories and Flux sources", Ordered, func() {
	var (
		env *testcluster.Env
		ctx = context.Background()
	)
	const ns = "src"

	BeforeAll(func() {
		fluxCRDs, err := testcluster.FluxSourceCRDs()
		Expect(err).NotTo(HaveOccurred())
		env = startControlPlane(fluxCRDs)
		for _, name := range []string{"wavekit-system", ns, "locked"} {
			Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
		}
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{
			"extraRules": webSourceRules(),
		}})
		binary := buildOperatorBinary()
		cfg := serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator")
		startOperatorBinary(binary, cfg, "--watch-namespaces", ns, "--source-cache-dir", GinkgoT().TempDir())
		startOperatorBinary(binary, cfg, "--watch-namespaces", "locked", "--no-cross-namespace-refs",
			"--operator-name", "locked.wavekit.dev", "--source-cache-dir", GinkgoT().TempDir())
	})

	component := func(name string, spec v1alpha1.ComponentSpec) *v1alpha1.Component {
		return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	}
	ready := func(c *v1alpha1.Component) {
		GinkgoHelper()
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60*time.Second).Should(Equal("True/Ready"), func() string { return statusOf(ctx, env, c) })
	}
	notReady := func(c *v1alpha1.Component, message string) {
		GinkgoHelper()
		Eventually(func() string { return statusOf(ctx, env, c) }).WithTimeout(60 * time.Second).Should(And(HavePrefix("False/"), ContainSubstring(message)))
	}
	configMap := func(name string) map[string]string {
		var cm corev1.ConfigMap
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm); err != nil {
			return map[string]string{"error": err.Error()}
		}
		return cm.Data
	}
	update := func(c *v1alpha1.Component, change func(*v1alpha1.Component)) {
		GinkgoHelper()
		Eventually(func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), c); err != nil {
				return err
			}
			change(c)
			return env.Client.Update(ctx, c)
		}).Should(Succeed())
	}
	remove := func(c *v1alpha1.Component) {
		GinkgoHelper()
		Expect(client.IgnoreNotFound(env.Client.Delete(ctx, c))).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60 * time.Second).Should(Equal("gone"))
	}

	It("refuses a Component with no source or more than one, naming the fields", func() {
		both := component("both", v1alpha1.ComponentSpec{Source: "web", Chart: &v1alpha1.ChartSource{Repository: "https://x.example", Name: "x"}})
		Expect(env.Client.Create(ctx, both)).To(MatchError(ContainSubstring("spec.source and spec.chart are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git")))
		Expect(env.Client.Create(ctx, component("none", v1alpha1.ComponentSpec{}))).To(MatchError(ContainSubstring("none of spec.source, spec.chart, spec.sourceRef and spec.git is set")))
		pathAlone := component("path", v1alpha1.ComponentSpec{Source: "web", Path: "deploy"})
		Expect(env.Client.Create(ctx, pathAlone)).To(MatchError(ContainSubstring("spec.path is a directory inside the artifact of spec.sourceRef")))
	})

	It("installs a chart from a Helm repository, records its source, and says which versions exist when one does not", func() {
		repo, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		Expect(repo.Add(localrepo.Hello("1.0.0"), localrepo.Hello("1.1.0"))).To(Succeed())

		c := component("repo", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "hello", Version: "~1.0.0"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		ready(c)
		Expect(configMap("repo")).To(HaveKeyWithValue("version", "1.0.0"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		Expect(c.Status.Source).NotTo(BeNil())
		Expect(c.Status.Source.Revision).To(Equal("1.0.0"))
		Expect(c.Status.Source.URL).To(Equal(repo.URL + "/hello-1.0.0.tgz"))
		Expect(c.Status.Source.Digest).To(MatchRegexp("^sha256:[0-9a-f]{64}$"))

		By("refusing a version that does not exist, and changing nothing")
		update(c, func(c *v1alpha1.Component) { c.Spec.Chart.Version = "9.x" })
		notReady(c, `no version matches "9.x"`)
		Expect(statusOf(ctx, env, c)).To(ContainSubstring("1.1.0, 1.0.0"))
		Expect(configMap("repo")).To(HaveKeyWithValue("version", "1.0.0"))

		By("taking the latest version, and a new one published later at the requeue interval")
		update(c, func(c *v1alpha1.Component) {
			c.Spec.Chart.Version = ""
			c.Spec.Intervals.Requeue = &metav1.Duration{Duration: time.Second}
		})
		Eventually(func() map[string]string { return configMap("repo") }).WithTimeout(60 * time.Second).Should(HaveKeyWithValue("version", "1.1.0"))
		Expect(repo.Add(localrepo.Hello("1.2.0"))).To(Succeed())
		Eventually(func() map[string]string { return configMap("repo") }).WithTimeout(60 * time.Second).Should(HaveKeyWithValue("version", "1.2.0"))
		remove(c)
	})

	It("previews a new chart version with the operator's code, writing nothing, and the operator then does what it showed", func() {
		repo, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		Expect(repo.Add(planChart("1.0.0"), planChart("2.0.0"))).To(Succeed())
		c := component("plan", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "plan", Version: "1.0.0"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		ready(c)
		kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())

		By("previewing the Component as it is: nothing changes")
		code, out, errOut := runWavekit(ctx, kubeconfig, "diff", "component", ns+"/plan", "--operator-name", "e2e.wavekit.dev", "--cache-dir", GinkgoT().TempDir())
		Expect(out).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 3 unchanged\n"), "%s%s", out, errOut)
		Expect(code).To(Equal(0), errOut)

		By("previewing version 2.0.0 from a file")
		next := &v1alpha1.Component{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Component"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plan"}, Spec: *c.Spec.DeepCopy()}
		next.Spec.Chart.Version = "2.0.0"
		manifest, err := yaml.Marshal(next)
		Expect(err).NotTo(HaveOccurred())
		file := filepath.Join(GinkgoT().TempDir(), "plan.yaml")
		Expect(os.WriteFile(file, manifest, 0o600)).To(Succeed())
		var before corev1.ConfigMapList
		Expect(env.Client.List(ctx, &before, client.InNamespace(ns))).To(Succeed())
		code, out, errOut = runWavekit(ctx, kubeconfig, "diff", "component", "-f", file, "-o", "json", "--operator-name", "e2e.wavekit.dev", "--cache-dir", GinkgoT().TempDir())
		Expect(code).To(Equal(1), errOut)
		steps := previewSteps(out)
		Expect(steps).To(Equal([]string{
			"apply 0 configuration: update ConfigMap/plan (data.version: 1.0.0 → 2.0.0)",
			"apply 0 configuration: unchanged ConfigMap/plan-keep (as last applied)",
			"apply 0 configuration: create ConfigMap/plan-new",
			"wait 0 : ready ConfigMap/plan",
			"wait 0 : ready ConfigMap/plan-keep",
			"wait 0 : ready ConfigMap/plan-new",
			"apply 10000 configuration: create ConfigMap/plan-hook (hook post-upgrade)",
			"wait 10000 : ready ConfigMap/plan-hook (hook post-upgrade)",
			"purge 10000 : purge ConfigMap/plan-hook (hook post-upgrade; purge-order 19999)",
			"prune 0 configuration: prune ConfigMap/plan-old (no longer rendered)",
		}), out)
		var after corev1.ConfigMapList
		Expect(env.Client.List(ctx, &after, client.InNamespace(ns))).To(Succeed())
		Expect(configMapVersions(&after, "plan")).To(Equal(configMapVersions(&before, "plan")), "the preview wrote")

		By("upgrading: the operator does what the preview showed")
		update(c, func(c *v1alpha1.Component) { c.Spec.Chart.Version = "2.0.0" })
		Eventually(func() map[string]string { return configMap("plan") }).WithTimeout(60 * time.Second).Should(HaveKeyWithValue("version", "2.0.0"))
		ready(c)
		Expect(env.Client.List(ctx, &after, client.InNamespace(ns))).To(Succeed())
		was, now := configMapVersions(&before, "plan"), configMapVersions(&after, "plan")
		Expect(now).NotTo(HaveKey("plan-old"), "pruned")
		Expect(now).NotTo(HaveKey("plan-hook"), "purged")
		Expect(now).To(HaveKey("plan-new"), "created")
		Expect(now["plan"]).NotTo(Equal(was["plan"]), "updated")
		Expect(now["plan-keep"]).To(Equal(was["plan-keep"]), "unchanged")
		// Events are written by the recorder after the pass, in any order.
		Eventually(func() []string { return reasonsFor(ctx, env, ns, "plan") }).WithTimeout(30 * time.Second).Should(ContainElements(
			ContainSubstring("Created: created 2 objects: ConfigMap "+ns+"/plan-hook, ConfigMap "+ns+"/plan-new"),
			ContainSubstring("Updated: updated 1 object: ConfigMap "+ns+"/plan"),
		))
		remove(c)
	})

	It("makes a Component whose health check does not compile Stalled at once, with the CEL error, writing nothing", func() {
		c := component("badcheck", v1alpha1.ComponentSpec{Source: "web", HealthChecks: []manifests.HealthCheck{
			{APIVersion: "apps/v1", Kind: "Deployment", Current: "self.status.readyReplicas =="},
		}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		Eventually(func() string { return statusOf(ctx, env, c) }).WithTimeout(60 * time.Second).Should(And(
			HavePrefix("False/"),
			ContainSubstring(`health check 0 (apps/v1 Deployment) current "self.status.readyReplicas ==": ERROR: <input>:1:`)))
		var got v1alpha1.Component
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
		Expect(meta.IsStatusConditionTrue(got.Status.Conditions, "Stalled")).To(BeTrue(), "a change of the check fixes it, not a retry")
		Expect(got.Status.Inventory).To(BeEmpty(), "nothing was written")
		remove(c)
	})

	It("waits for an object it depends on until its readyExpr holds, reading it as the operator's identity in the target", func() {
		c := component("after-flag", v1alpha1.ComponentSpec{Source: "web", DependsOn: []v1alpha1.DependencyReference{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "flag", ReadyExpr: "has(self.data.ready) && self.data.ready == 'true'"},
		}})
		// A retry an hour away: only a watch of the ConfigMap moves it on
		// within seconds of each change.
		c.Spec.Intervals.Retry = &metav1.Duration{Duration: time.Hour}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		notReady(c, "waiting for dependency ConfigMap "+ns+"/flag: it does not exist")
		Expect(statusOf(ctx, env, c)).To(HavePrefix("False/Pending"))

		By("moving on when the ConfigMap is created")
		flag := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "flag"}, Data: map[string]string{"ready": "false"}}
		Expect(env.Client.Create(ctx, flag)).To(Succeed())
		Eventually(func() string { return statusOf(ctx, env, c) }).WithTimeout(30 * time.Second).Should(And(HavePrefix("False/Pending"),
			ContainSubstring("waiting for dependency ConfigMap "+ns+"/flag: readyExpr has(self.data.ready) && self.data.ready == 'true' is not true")))

		By("moving on when the ConfigMap is updated")
		flag.Data["ready"] = "true"
		Expect(env.Client.Update(ctx, flag)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(30*time.Second).Should(Equal("True/Ready"), func() string { return statusOf(ctx, env, c) })
		remove(c)
		Expect(env.Client.Delete(ctx, flag)).To(Succeed())
	})

	It("reports an unreachable repository and retries it", func() {
		c := component("unreachable", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: "http://127.0.0.1:1/charts", Name: "hello"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		notReady(c, "127.0.0.1:1")
		Expect(readyReason(ctx, env, c)).To(Equal("False/Retrying"))
		remove(c)
	})

	It("installs a chart from an OCI registry, with and without a login", func() {
		open, err := localregistry.New("", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(open.Close)
		Expect(open.Push("charts", localrepo.Hello("2.0.0"))).To(Succeed())
		anonymous := component("oci", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: open.Repository("charts"), Name: "hello", Insecure: true}})
		Expect(env.Client.Create(ctx, anonymous)).To(Succeed())
		ready(anonymous)
		Expect(configMap("oci")).To(HaveKeyWithValue("version", "2.0.0"))

		locked, err := localregistry.New("robot", "s3cret")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(locked.Close)
		Expect(locked.Push("charts", localrepo.Hello("2.1.0"))).To(Succeed())
		login := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "registry-login"},
			StringData: map[string]string{"username": "robot", "password": "wrong"}}
		Expect(env.Client.Create(ctx, login)).To(Succeed())
		private := component("private", v1alpha1.ComponentSpec{Chart: &v1alpha1.ChartSource{Repository: locked.Repository("charts"), Name: "hello",
			Insecure: true, SecretRef: &v1alpha1.LocalObjectReference{Name: "registry-login"}}})
		Expect(env.Client.Create(ctx, private)).To(Succeed())
		notReady(private, "authentication")
		Expect(statusOf(ctx, env, private)).NotTo(ContainSubstring("wrong"), "the password is never shown")

		login.StringData = map[string]string{"username": "robot", "password": "s3cret"}
		Expect(env.Client.Update(ctx, login)).To(Succeed())
		// A retry picks up the corrected Secret (a chart's secretRef is not watched).
		update(private, func(c *v1alpha1.Component) { c.Spec.Intervals.Retry = &metav1.Duration{Duration: time.Second} })
		ready(private)
		Expect(configMap("private")).To(HaveKeyWithValue("version", "2.1.0"))
		remove(anonymous)
		remove(private)
	})

	It("renders the artifact of a Flux source at spec.path, again when Flux has a new revision, and refuses a wrong digest", func() {
		artifacts := localrepo.NewArtifacts()
		DeferCleanup(artifacts.Close)
		kustomization := func(greeting string) map[string]string {
			return map[string]string{
				"deploy/app/kustomization.yaml":  "resources:\n  - ../base\nconfigMapGenerator:\n  - name: flux-app\n    options: {disableNameSuffixHash: true}\n    literals: [greeting=" + greeting + "]\n",
				"deploy/base/kustomization.yaml": "resources: [service.yaml]\n",
				"deploy/base/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: flux-app\nspec:\n  ports: [{port: 80}]\n",
			}
		}
		first, err := artifacts.Publish("rev1.tar.gz", "main@sha1:1111111", kustomization("one"))
		Expect(err).NotTo(HaveOccurred())
		source := gitRepository(ns, "app-repo")
		Expect(env.Client.Create(ctx, source)).To(Succeed())

		c := component("flux", v1alpha1.ComponentSpec{SourceRef: &v1alpha1.SourceReference{Kind: "GitRepository", Name: "app-repo"}, Path: "deploy/app"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		notReady(c, "GitRepository src/app-repo has no artifact yet")

		setArtifact(ctx, env, source, first)
		ready(c)
		Expect(configMap("flux-app")).To(HaveKeyWithValue("greeting", "one"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		Expect(c.Status.Source).To(HaveValue(Equal(statusSource(first))))

		By("following a new revision as soon as Flux records it")
		second, err := artifacts.Publish("rev2.tar.gz", "main@sha1:2222222", kustomization("two"))
		Expect(err).NotTo(HaveOccurred())
		setArtifact(ctx, env, source, second)
		Eventually(func() map[string]string { return configMap("flux-app") }).WithTimeout(30 * time.Second).Should(HaveKeyWithValue("greeting", "two"))

		By("refusing an artifact whose digest does not match, and changing nothing")
		third, err := artifacts.Publish("rev3.tar.gz", "main@sha1:3333333", kustomization("three"))
		Expect(err).NotTo(HaveOccurred())
		third.Digest = "sha256:" + strings.Repeat("0", 64) // a digest the cache does not hold: it downloads, and compares
		setArtifact(ctx, env, source, third)
		notReady(c, "digest")
		Expect(configMap("flux-app")).To(HaveKeyWithValue("greeting", "two"))
		remove(c)
	})

	It("renders the chart in a Flux HelmChart's artifact", func() {
		artifacts := localrepo.NewArtifacts()
		DeferCleanup(artifacts.Close)
		// A HelmChart's artifact is the packaged chart: one directory, the chart's.
		packaged, err := artifacts.Publish("hello-3.0.0.tgz", "3.0.0", map[string]string{
			"hello/Chart.yaml":        "apiVersion: v2\nname: hello\nversion: 3.0.0\n",
			"hello/values.yaml":       "greeting: from-helmchart\n",
			"hello/templates/cm.yaml": localrepo.Hello("3.0.0").Templates["cm.yaml"],
		})
		Expect(err).NotTo(HaveOccurred())
		source := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
			"metadata": map[string]any{"namespace": ns, "name": "hello"},
			"spec": map[string]any{"chart": "hello", "interval": "10m",
				"sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}},
		}}
		Expect(env.Client.Create(ctx, source)).To(Succeed())
		setArtifact(ctx, env, source, packaged)
		c := component("fluxchart", v1alpha1.ComponentSpec{SourceRef: &v1alpha1.SourceReference{Kind: "HelmChart", Name: "hello"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		ready(c)
		Expect(configMap("fluxchart")).To(Equal(map[string]string{"version": "3.0.0", "greeting": "from-helmchart"}))
		remove(c)
	})

	It("refuses a Flux source or a dependency in another namespace with --no-cross-namespace-refs", func() {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "locked", Name: "reach"},
			Spec: v1alpha1.ComponentSpec{SourceRef: &v1alpha1.SourceReference{Kind: "GitRepository", Name: "app-repo", Namespace: ns}}}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		notReady(c, "cross-namespace references are refused")
		d := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "locked", Name: "lean"},
			Spec: v1alpha1.ComponentSpec{Source: "web", DependsOn: []v1alpha1.DependencyReference{{Name: "db", Namespace: ns}}}}
		Expect(env.Client.Create(ctx, d)).To(Succeed())
		notReady(d, "cross-namespace references are refused")
		remove(c)
		remove(d)
	})

	It("merges valuesFrom in order under spec.values, and applies a change to them at once", func() {
		Expect(env.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-values"},
			Data: map[string]string{"values.yaml": "greeting: from-configmap\n"}})).To(Succeed())
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-secret"}, StringData: map[string]string{"greet": "from-secret"}}
		Expect(env.Client.Create(ctx, secret)).To(Succeed())
		c := component("vals", v1alpha1.ComponentSpec{Source: "web", ValuesFrom: []v1alpha1.ValuesReference{
			{Kind: "ConfigMap", Name: "web-values"},
			{Kind: "Secret", Name: "web-secret", ValuesKey: "greet", TargetPath: "greeting"},
			{Kind: "ConfigMap", Name: "absent", Optional: true},
		}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		ready(c)
		Expect(configMap("vals-config")).To(HaveKeyWithValue("greeting", "from-secret"))

		secret.StringData = map[string]string{"greet": "changed, with a comma"}
		Expect(env.Client.Update(ctx, secret)).To(Succeed())
		Eventually(func() map[string]string { return configMap("vals-config") }).WithTimeout(30 * time.Second).Should(HaveKeyWithValue("greeting", "changed, with a comma"))

		update(c, func(c *v1alpha1.Component) {
			c.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"from-spec"}`)}
		})
		Eventually(func() map[string]string { return configMap("vals-config") }).WithTimeout(30 * time.Second).Should(HaveKeyWithValue("greeting", "from-spec"))

		By("refusing a missing key, and changing nothing")
		update(c, func(c *v1alpha1.Component) { c.Spec.ValuesFrom[0].ValuesKey = "nope.yaml" })
		notReady(c, "ConfigMap src/web-values has no key nope.yaml (keys: values.yaml)")
		Expect(configMap("vals-config")).To(HaveKeyWithValue("greeting", "from-spec"))
		remove(c)
	})

	It("applies kustomize patches to the rendered objects, and refuses a patch that matches nothing", func() {
		c := component("patched", v1alpha1.ComponentSpec{Source: "web", Patches: []v1alpha1.Patch{
			{Patch: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: patched-config\n  labels:\n    team: blue\n"},
			{Patch: "- op: replace\n  path: /spec/ports/0/port\n  value: 8080\n", Target: &manifests.ObjectSelector{Kind: "Service"}},
		}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		ready(c)
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "patched-config"}, &cm)).To(Succeed())
		Expect(cm.Labels).To(HaveKeyWithValue("team", "blue"))
		Expect(cm.Data).To(HaveKeyWithValue("greeting", "hello"))
		var svc corev1.Service
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "patched"}, &svc)).To(Succeed())
		Expect(svc.Spec.Ports[0].Port).To(BeEquivalentTo(8080))

		update(c, func(c *v1alpha1.Component) {
			c.Spec.Patches = append(c.Spec.Patches, v1alpha1.Patch{Patch: "- op: remove\n  path: /data\n", Target: &manifests.ObjectSelector{Kind: "Secret"}})
		})
		notReady(c, "patch 3")
		Expect(statusOf(ctx, env, c)).To(ContainSubstring("matches no object"))
		remove(c)
	})

	It("applies a Component only once its dependencies are Ready, and deletes a dependency only once its dependents are gone", func() {
		app := component("app", v1alpha1.ComponentSpec{Source: "web", DependsOn: []v1alpha1.DependencyReference{{Name: "db"}}})
		Expect(env.Client.Create(ctx, app)).To(Succeed())
		Eventually(func() string { return statusOf(ctx, env, app) }).WithTimeout(30 * time.Second).
			Should(Equal("False/Pending: waiting for dependency src/db: it does not exist"))
		Expect(configMap("app-config")).To(HaveKey("error"), "nothing is applied while a dependency is missing")

		db := component("db", v1alpha1.ComponentSpec{Source: "web"})
		Expect(env.Client.Create(ctx, db)).To(Succeed())
		ready(db)
		ready(app)

		By("keeping the dependency while the dependent exists")
		Expect(env.Client.Delete(ctx, db)).To(Succeed())
		Eventually(func() string { return statusOf(ctx, env, db) }).WithTimeout(30 * time.Second).
			Should(Equal("False/DeletionBlocked: deletion waits for src/app, which depends on it"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(db), db)).To(Succeed())
		Expect(db.Status.State).To(BeEquivalentTo("DeletionPending"))
		Expect(configMap("db-config")).To(HaveKeyWithValue("greeting", "hello"))
		remove(app)
		Eventually(func() string { return readyReason(ctx, env, db) }).WithTimeout(60 * time.Second).Should(Equal("gone"))

		By("reporting a cycle instead of waiting on it, and deleting its members")
		one := component("one", v1alpha1.ComponentSpec{Source: "web", DependsOn: []v1alpha1.DependencyReference{{Name: "two"}}})
		two := component("two", v1alpha1.ComponentSpec{Source: "web", DependsOn: []v1alpha1.DependencyReference{{Name: "one"}}})
		Expect(env.Client.Create(ctx, one)).To(Succeed())
		Expect(env.Client.Create(ctx, two)).To(Succeed())
		notReady(one, "dependency cycle: src/one → src/two → src/one")
		Expect(env.Client.Delete(ctx, one)).To(Succeed())
		Expect(env.Client.Delete(ctx, two)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, one) + " " + readyReason(ctx, env, two) }).WithTimeout(60 * time.Second).Should(Equal("gone gone"))
	})
})

// statusOf is a Component's Ready status, reason and message.
func statusOf(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) string {
	var got v1alpha1.Component
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got); err != nil {
		return err.Error()
	}
	cond := got.Status.ReadyCondition()
	if cond == nil {
		return "none"
	}
	return fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message)
}

// gitRepository is a Flux GitRepository that no source-controller serves:
// the test writes its status.
func gitRepository(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"namespace": namespace, "name": name},
		"spec":     map[string]any{"url": "https://git.example/app.git", "interval": "10m"},
	}}
	return u
}

// setArtifact writes status.artifact as Flux's source-controller does.
func setArtifact(ctx context.Context, env *testcluster.Env, source *unstructured.Unstructured, a localrepo.Artifact) {
	GinkgoHelper()
	Eventually(func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(source), source); err != nil {
			return err
		}
		source.Object["status"] = map[string]any{
			"artifact": map[string]any{"url": a.URL, "digest": a.Digest, "revision": a.Revision,
				"path":           "gitrepository/" + source.GetNamespace() + "/" + source.GetName() + "/artifact.tar.gz",
				"lastUpdateTime": time.Now().UTC().Format(time.RFC3339)},
		}
		return env.Client.Status().Update(ctx, source)
	}).Should(Succeed())
}

func statusSource(a localrepo.Artifact) manifests.SourceInfo {
	return manifests.SourceInfo{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
}
