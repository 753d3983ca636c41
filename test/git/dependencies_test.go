package git_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/depcharts"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/internal/testing/helmcli"
	"github.com/wavekit-dev/wavekit/internal/testing/httpcount"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The charts of these specs are kept in Git without their dependencies,
// as most charts are in their own repositories: a Helm repository and an
// OCI registry of the test serve those, and the operator brings them.
var _ = Describe("charts that depend on other charts", Ordered, ContinueOnFailure, func() {
	var (
		helmCLI          *helmcli.CLI
		charts           *localrepo.Repository
		chartRequests    *httpcount.Counter
		registry         *localregistry.Registry
		registryRequests *httpcount.Counter
		source           *gitserver.Repo
		signer           *localregistry.Signer
	)

	BeforeAll(func() {
		var err error
		helmCLI, err = helmcli.Build(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		chartRequests = httpcount.New()
		charts, err = localrepo.StartRepository(localrepo.RepositoryOptions{Wrap: chartRequests.Wrap})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(charts.Close)
		Expect(charts.Add(subchart("web", "1.0.0"), subchart("web", "1.1.0"), subchart("extra", "1.0.0"))).To(Succeed())
		registryRequests = httpcount.New()
		registry, err = localregistry.Start(localregistry.Options{Wrap: registryRequests.Wrap})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		for _, version := range []string{"0.1.0", "0.2.0"} {
			Expect(registry.Push("charts", subchart("db", version))).To(Succeed())
		}
		signer, err = localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		Expect(registry.Push("signed", subchart("db", "0.1.0"))).To(Succeed())
		Expect(registry.SignBundle(ctx, "signed", "db", "0.1.0", signer)).To(Succeed())

		// The chart's lock is what helm dependency update writes with the
		// repository added; 1.2.0 comes after it, inside its range.
		files := parentSource(charts.URL, registry.Repository("charts"))
		files["charts/parent/Chart.lock"] = helmLock(helmCLI, files, charts.URL)
		files["charts/unlocked/Chart.yaml"] = strings.Replace(files["charts/parent/Chart.yaml"], "name: parent", "name: unlocked", 1)
		for _, name := range []string{"values.yaml", "templates/cm.yaml"} {
			files["charts/unlocked/"+name] = files["charts/parent/"+name]
		}
		source = newRepo(server, files)
		Expect(charts.Add(subchart("web", "1.2.0"))).To(Succeed())
		for _, ns := range []string{teamA, teamB} {
			repositorySecret(ns, "local-registry", map[string][]byte{"url": []byte("oci://" + registry.Host), "plainHTTP": []byte("true")})
		}
	})

	It("becomes Ready from Git with an https://, an oci:// and a file:// dependency, an alias, one turned off, and a lock", func() {
		extraBefore := chartRequests.Count("/extra-") // helm dependency update fetched it for the lock
		c := createComponent(teamA, "locked", gitSpec(server.HTTPURL(source.Name), "charts/parent", every))
		Eventually(ready(c)).WithTimeout(timeout).Should(HavePrefix("True Ready"))
		Expect(configMaps(teamA, "locked")).To(Equal(map[string]string{
			"locked-parent":   "web=from parent part-of=parent",
			"locked-web":      "version=1.1.0 greeting=from parent",
			"locked-database": "version=0.2.0 greeting=from parent to the database",
		}), "web at the lock's 1.1.0 though 1.2.0 is in its range; extra is off")
		Expect(dependencies(c)).To(Equal([]string{
			"web 1.1.0 " + charts.URL, "database db 0.2.0 " + registry.Repository("charts"), "common 0.1.0 file://../common"}))
		Expect(chartRequests.Count("/extra-")).To(Equal(extraBefore), "a dependency its condition turns off is not fetched")
		Expect(wavekit("tree", teamA+"/locked")).To(ContainSubstring("Chart dependencies:\n" +
			"  web 1.1.0 from " + charts.URL + "\n  database (db) 0.2.0 from " + registry.Repository("charts") + "\n  common 0.1.0 from file://../common\n"))
	})

	It("renders a new version inside a range once, and an unchanged one never", func() {
		c := createComponent(teamA, "ranged", gitSpec(server.HTTPURL(source.Name), "charts/unlocked", every))
		Eventually(subData(c, "web", "version")).WithTimeout(timeout).Should(Equal("1.2.0"))
		first := subData(c, "web", "rendered")()

		Expect(charts.Add(subchart("web", "1.3.0"))).To(Succeed())
		Eventually(subData(c, "web", "version")).WithTimeout(timeout).Should(Equal("1.3.0"))
		second := subData(c, "web", "rendered")()
		Expect(second).NotTo(Equal(first))
		Eventually(ready(c)).WithTimeout(timeout).Should(HavePrefix("True Ready"))

		looks := chartRequests.Count("/index.yaml")
		Eventually(func() int { return chartRequests.Count("/index.yaml") }).WithTimeout(timeout).Should(BeNumerically(">", looks+1),
			"the repository is looked at again at the interval")
		Expect(subData(c, "web", "rendered")()).To(Equal(second), "an unchanged version renders nothing")
		Expect(chartRequests.Count("/web-1.3.0.tgz")).To(Equal(1), "the new version is fetched once")
	})

	It("fetches each archive once for fifty Components of the chart", func() {
		ns := namespace("fifty")
		repositorySecret(ns, "local-registry", map[string][]byte{"url": []byte("oci://" + registry.Host), "plainHTTP": []byte("true")})
		files := parentSource(charts.URL, registry.Repository("charts"))
		for path, content := range files {
			if strings.HasSuffix(path, "Chart.yaml") && strings.Contains(path, "parent") {
				content = strings.Replace(strings.Replace(content, "^1.0.0", "1.0.0", 1), "0.x", "0.1.0", 1)
			}
			files[strings.Replace(path, "charts/parent", "charts/fifty", 1)] = content
		}
		push(source, files)
		webBefore, dbBefore := chartRequests.Count("/web-1.0.0.tgz"), registryRequests.Count("/blobs/")
		indexBefore, tagsBefore, allBefore := chartRequests.Count("/index.yaml"), registryRequests.Count("/tags/list"), chartRequests.Count("")+registryRequests.Count("")
		var cs []*v1alpha1.Component
		for i := range 50 {
			cs = append(cs, createComponent(ns, fmt.Sprintf("c%02d", i), gitSpec(server.HTTPURL(source.Name), "charts/fifty", every)))
		}
		for _, c := range cs {
			Eventually(ready(c)).WithTimeout(2 * timeout).Should(HavePrefix("True Ready"))
		}
		Expect(chartRequests.Count("/web-1.0.0.tgz") - webBefore).To(Equal(1))
		Expect(registryRequests.Count("/blobs/")-dbBefore).To(Equal(2), "the chart's config and its layer, once")
		report("50 Components of a chart with 3 dependencies, to Ready: web-1.0.0.tgz fetched %d time, db's blobs %d times, index.yaml %d times, db's tag list %d times; %d requests to the repository and the registry in all",
			chartRequests.Count("/web-1.0.0.tgz")-webBefore, registryRequests.Count("/blobs/")-dbBefore, chartRequests.Count("/index.yaml")-indexBefore,
			registryRequests.Count("/tags/list")-tagsBefore, chartRequests.Count("")+registryRequests.Count("")-allBefore)
	})

	It("uses a namespace's repository credentials for its own Components only", func() {
		private, err := localrepo.StartRepository(localrepo.RepositoryOptions{Username: "reader", Password: password})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(private.Close)
		Expect(private.Add(subchart("web", "1.0.0"))).To(Succeed())
		repo := newRepo(server, onlyDependency("web", "^1", private.URL))
		repositorySecret(teamA, "private-charts", map[string][]byte{"url": []byte(private.URL), "username": []byte("reader"), "password": []byte(password)})

		mine := createComponent(teamA, "with-login", gitSpec(server.HTTPURL(repo.Name), "chart", every))
		Eventually(ready(mine)).WithTimeout(timeout).Should(HavePrefix("True Ready"))
		theirs := createComponent(teamB, "without-login", gitSpec(server.HTTPURL(repo.Name), "chart", every))
		Eventually(ready(theirs)).WithTimeout(timeout).Should(And(HavePrefix("False"),
			ContainSubstring("authentication failed for "+private.URL+"/index.yaml: HTTP 401 Unauthorized (no credentials given)")))
		Expect(configMaps(teamB, "without-login")).To(BeEmpty())
		Expect(string(logs.Contents())).NotTo(ContainSubstring(password))
	})

	It("verifies dependencies when the Component asks for it", func() {
		createSecret(teamA, "dependency-keys", map[string][]byte{"cosign.pub": signer.PublicKeyPEM()})
		Expect(registry.Push("unsigned", noisy("db", "0.1.0", 64))).To(Succeed()) // not the signed content
		repo := newRepo(server, onlyDependency("db", "0.1.0", registry.Repository("signed")))
		push(repo, prefixed("unsigned/", onlyDependency("db", "0.1.0", registry.Repository("unsigned"))))
		verified := v1alpha1.ChartDependencies{Verify: &v1alpha1.DependencyVerification{SecretRef: v1alpha1.LocalObjectReference{Name: "dependency-keys"}}}

		signed := gitSpec(server.HTTPURL(repo.Name), "chart", every)
		signed.ChartDependencies = verified.DeepCopy()
		c := createComponent(teamA, "signed-dependency", signed)
		Eventually(ready(c)).WithTimeout(timeout).Should(HavePrefix("True Ready"))
		Expect(status(c).Source.Dependencies[0].Verified).To(ContainSubstring("cosign.pub"))

		unsigned := gitSpec(server.HTTPURL(repo.Name), "unsigned/chart", every)
		unsigned.ChartDependencies = verified.DeepCopy()
		u := createComponent(teamA, "unsigned-dependency", unsigned)
		Eventually(ready(u)).WithTimeout(timeout).Should(HavePrefix("False VerificationFailed: "))
		Expect(configMaps(teamA, "unsigned-dependency")).To(BeEmpty())
	})

	DescribeTable("refuses bad input with a reason on the Component, and applies nothing",
		func(files func() map[string]string, prepare func(ns string), want string) {
			ns := namespace("bad")
			prepare(ns)
			repo := newRepo(server, files())
			c := createComponent(ns, "bad", gitSpec(server.HTTPURL(repo.Name), "chart", every))
			Eventually(ready(c)).WithTimeout(timeout).Should(And(HavePrefix("False"), ContainSubstring(want)))
			Expect(configMaps(ns, "bad")).To(BeEmpty())
		},
		Entry("a repository that does not answer",
			func() map[string]string { return onlyDependency("web", "^1", "http://127.0.0.1:1") }, func(string) {},
			"dependency web from http://127.0.0.1:1: fetching http://127.0.0.1:1/index.yaml"),
		Entry("a version no release matches",
			func() map[string]string { return onlyDependency("web", "^7", charts.URL) }, func(string) {},
			`dependency web from `+"http://127.0.0.1"),
		Entry("a lock out of sync with Chart.yaml",
			func() map[string]string {
				files := onlyDependency("web", "^1", charts.URL)
				files["chart/Chart.lock"] = "dependencies:\n- name: web\n  repository: " + charts.URL + "\n  version: 1.0.0\ndigest: sha256:0000\ngenerated: \"2026-01-01T00:00:00Z\"\n"
				return files
			}, func(string) {},
			"Chart.lock is out of sync with the dependencies of Chart.yaml: run helm dependency update"),
		Entry("a file:// path that leaves the source",
			func() map[string]string { return onlyDependency("common", "0.1.0", "file://../../../..") }, func(string) {},
			"dependency common: file://../../../.. leaves the source it comes with"),
		Entry("an archive over the size limit",
			func() map[string]string {
				Expect(charts.Add(noisy("huge", "1.0.0", 400<<10))).To(Succeed())
				return onlyDependency("huge", "1.0.0", charts.URL)
			}, func(string) {},
			"huge-1.0.0.tgz exceeds the limit of 256 KiB"),
		Entry("a dependency URL the allow-list refuses",
			func() map[string]string { return onlyDependency("db", "0.1.0", registry.Repository("charts")) },
			func(ns string) {
				Expect(env.Client.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
					Annotations: map[string]string{operatorName + "/allowed-sources": "http://127.0.0.1:*/**"}}}, client.Merge)).To(Succeed())
			},
			"SourceNotAllowed: rendering: the chart dependency db from oci://"),
	)

	It("keeps the last render applied when a change breaks a dependency", func() {
		repo := newRepo(server, onlyDependency("web", "^1", charts.URL))
		c := createComponent(teamA, "kept", gitSpec(server.HTTPURL(repo.Name), "chart", every))
		Eventually(subData(c, "web", "version")).WithTimeout(timeout).Should(Equal("1.3.0"))
		push(repo, onlyDependency("web", "^9", charts.URL))
		Eventually(ready(c)).WithTimeout(timeout).Should(And(HavePrefix("False"), ContainSubstring(`no version matches "^9"`)))
		Expect(subData(c, "web", "version")()).To(Equal("1.3.0"))
	})
})

// subchart is depcharts.Greeter with a random value only a render
// changes (rendered).
func subchart(name, version string) localrepo.Chart {
	ch := depcharts.Greeter(name, version)
	ch.Templates = map[string]string{"cm.yaml": ch.Templates["cm.yaml"] + "  rendered: {{ randAlphaNum 12 | quote }}\n"}
	return ch
}

// noisy is subchart with size bytes of random values: its archive is about
// that large.
func noisy(name, version string, size int) localrepo.Chart {
	ch := subchart(name, version)
	noise := make([]byte, size)
	_, _ = rand.Read(noise)
	ch.Values["noise"] = base64.StdEncoding.EncodeToString(noise)
	return ch
}

// parentSource is depcharts.Source of its ParentChartYAML.
func parentSource(repoURL, registryURL string) map[string]string {
	return depcharts.Source(depcharts.ParentChartYAML(repoURL, registryURL))
}

// onlyDependency is a repository's files: a chart at chart/ with one
// dependency and a ConfigMap of its own.
func onlyDependency(name, version, repository string) map[string]string {
	return map[string]string{
		"chart/Chart.yaml":        fmt.Sprintf("apiVersion: v2\nname: only\nversion: 1.0.0\ndependencies:\n  - name: %s\n    version: %q\n    repository: %q\n", name, version, repository),
		"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-only\ndata:\n  chart: only\n",
	}
}

func prefixed(prefix string, files map[string]string) map[string]string {
	out := map[string]string{}
	for path, content := range files {
		out[prefix+path] = content
	}
	return out
}

// helmLock is the Chart.lock helm dependency update writes for
// charts/parent of files, with repoURL added as a repository.
func helmLock(cli *helmcli.CLI, files map[string]string, repoURL string) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	for path, content := range files {
		Expect(os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644)).To(Succeed())
	}
	chartDir := filepath.Join(dir, "charts", "parent")
	_, err := cli.Run(chartDir, "repo", "add", "local", repoURL, "--force-update")
	Expect(err).NotTo(HaveOccurred())
	_, err = cli.Run(chartDir, "dependency", "update", ".", "--plain-http")
	Expect(err).NotTo(HaveOccurred())
	lock, err := os.ReadFile(filepath.Join(chartDir, "Chart.lock"))
	Expect(err).NotTo(HaveOccurred())
	return string(lock)
}

// repositorySecret creates a chart repository Secret in namespace.
func repositorySecret(namespace, name string, data map[string][]byte) {
	GinkgoHelper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
		Labels: map[string]string{operatorName + "/chart-repository": "true"}}, Data: data}
	Expect(env.Client.Create(ctx, s)).To(Succeed())
	DeferCleanup(func() { _ = env.Client.Delete(ctx, s) })
}

// namespaces counts the namespaces the specs make, for their names.
var namespaces int

// namespace creates a namespace named after prefix.
func namespace(prefix string) string {
	GinkgoHelper()
	namespaces++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, namespaces)}}
	Expect(env.Client.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func() { _ = env.Client.Delete(ctx, ns) })
	return ns.Name
}

// configMaps are the ConfigMaps of namespace whose name starts with
// release, each as its data's keys and values (but rendered).
func configMaps(namespace, release string) map[string]string {
	GinkgoHelper()
	list := &corev1.ConfigMapList{}
	Expect(env.Client.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
	out := map[string]string{}
	for _, cm := range list.Items {
		if !strings.HasPrefix(cm.Name, release+"-") {
			continue
		}
		var fields []string
		for _, key := range []string{"version", "greeting", "web"} {
			if v, ok := cm.Data[key]; ok {
				fields = append(fields, key+"="+v)
			}
		}
		if v, ok := cm.Labels["app.kubernetes.io/part-of"]; ok {
			fields = append(fields, "part-of="+v)
		}
		out[cm.Name] = strings.Join(fields, " ")
	}
	return out
}

// status is the Component's status as the API server has it.
func status(c *v1alpha1.Component) component.Status {
	GinkgoHelper()
	got := &v1alpha1.Component{}
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
	return got.Status
}

// dependencies lists status.source.dependencies: "name [chart] version
// repository".
func dependencies(c *v1alpha1.Component) []string {
	GinkgoHelper()
	source := status(c).Source
	if source == nil {
		return nil
	}
	var out []string
	for _, d := range source.Dependencies {
		out = append(out, strings.Join(nonEmpty(d), " "))
	}
	return out
}

func nonEmpty(d manifests.DependencyInfo) []string {
	var out []string
	for _, s := range []string{d.Name, d.Chart, d.Version, d.Repository} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// wavekit runs the CLI against the suite's cluster and returns what it
// printed.
func wavekit(args ...string) string {
	GinkgoHelper()
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, append([]string{"--kubeconfig", kubeconfig, "--operator-name", operatorName}, args...), &stdout, &stderr)
	Expect(code).To(BeZero(), "stderr: %s", stderr.String())
	return stdout.String()
}

// subData is a key of the ConfigMap <component>-<sub> a Component applied,
// "" while there is none.
func subData(c *v1alpha1.Component, sub, key string) func() string {
	return func() string {
		cm := &corev1.ConfigMap{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Name + "-" + sub}, cm); err != nil {
			return ""
		}
		return cm.Data[key]
	}
}
