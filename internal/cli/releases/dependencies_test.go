package releases_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/depcharts"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/internal/testing/helmcli"
	"github.com/wavekit-dev/wavekit/internal/testing/httpcount"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// greeter and chartTree are the shared charts of dependency tests.
var (
	greeter   = depcharts.Greeter
	chartTree = depcharts.Source
)

// writeTree writes files (path → content) under root.
func writeTree(root string, files map[string]string) {
	GinkgoHelper()
	Expect(depcharts.Write(root, files)).To(Succeed())
}

// inWorkTree writes files in a new Git work tree (a .git directory is
// what marks one) and returns the directory of charts/parent.
func inWorkTree(files map[string]string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	Expect(os.Mkdir(filepath.Join(root, ".git"), 0o755)).To(Succeed())
	writeTree(root, files)
	return filepath.Join(root, "charts", "parent")
}

// sortedObjects is a stream of objects as maps without the annotations of
// the operator name wavekit.dev, sorted by kind and name, as YAML: what
// helm template prints of wavekit's objects, whatever the order.
func sortedObjects(stream string) string {
	GinkgoHelper()
	objects, err := manifests.DecodeObjects("output", []byte(stream))
	Expect(err).NotTo(HaveOccurred())
	sort.Slice(objects, func(i, j int) bool {
		return objects[i].GetKind()+"/"+objects[i].GetName() < objects[j].GetKind()+"/"+objects[j].GetName()
	})
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		annotations := obj.GetAnnotations()
		for key := range annotations {
			if strings.HasPrefix(key, "wavekit.dev/") {
				delete(annotations, key)
			}
		}
		if len(annotations) == 0 {
			unstructured.RemoveNestedField(obj.Object, "metadata", "annotations")
		} else {
			obj.SetAnnotations(annotations)
		}
		out = append(out, obj.Object)
	}
	data, err := yaml.Marshal(out)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

var _ = Describe("a chart's dependencies", Ordered, ContinueOnFailure, func() {
	var (
		helmCLI          *helmcli.CLI
		charts           *localrepo.Repository
		chartRequests    *httpcount.Counter
		registry         *localregistry.Registry
		registryRequests *httpcount.Counter
		private          *localrepo.Repository
		// cache is the chart cache of the specs' runs, noRepos a
		// repositories file that does not exist.
		cache, noRepos string
	)

	BeforeAll(func() {
		dir := GinkgoT().TempDir()
		var err error
		helmCLI, err = helmcli.Build(dir)
		Expect(err).NotTo(HaveOccurred())

		chartRequests = httpcount.New()
		charts, err = localrepo.StartRepository(localrepo.RepositoryOptions{Wrap: chartRequests.Wrap})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(charts.Close)
		Expect(charts.Add(greeter("web", "1.0.0"), greeter("web", "1.1.0"), greeter("extra", "1.0.0"))).To(Succeed())

		registryRequests = httpcount.New()
		registry, err = localregistry.Start(localregistry.Options{Wrap: registryRequests.Wrap})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		Expect(registry.Push("charts", greeter("db", "0.1.0"))).To(Succeed())
		Expect(registry.Push("charts", greeter("db", "0.2.0"))).To(Succeed())

		private, err = localrepo.StartRepository(localrepo.RepositoryOptions{Username: "reader", Password: "pa55-w0rd"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(private.Close)
		Expect(private.Add(greeter("secret", "1.0.0"))).To(Succeed())

		cache = filepath.Join(dir, "chart-cache")
		noRepos = filepath.Join(dir, "no-repositories.yaml")
	})

	// parentChartYAML: a dependency of each kind, an alias, and one a
	// condition turns off.
	parentChartYAML := func() string { return depcharts.ParentChartYAML(charts.URL, registry.Repository("charts")) }

	// render runs wavekit render without a cluster, with the specs' cache
	// and no repositories file unless args give others.
	render := func(args ...string) clitest.Result {
		args = append([]string{"render"}, args...)
		for flag, value := range map[string]string{"--repository-config": noRepos, "--chart-cache": cache} {
			if !slices.Contains(args, flag) {
				args = append(args, flag, value)
			}
		}
		return clitest.WavekitWith(clitest.Unreachable, args...)
	}

	// helmTemplate is what helm dependency build (with args) and helm
	// template print for the chart at dir.
	helmTemplate := func(dir string, args ...string) string {
		GinkgoHelper()
		_, err := helmCLI.Run(dir, append([]string{"dependency", "build", "."}, args...)...)
		Expect(err).NotTo(HaveOccurred())
		stream, err := helmCLI.Run(dir, "template", "rel", ".", "--namespace", "ns", "--include-crds")
		Expect(err).NotTo(HaveOccurred())
		return sortedObjects(stream)
	}

	It("renders a dependency of each kind, under its alias, and not one turned off, as helm dependency build and helm template do", func() {
		dir := inWorkTree(chartTree(parentChartYAML()))
		r := render(dir, "--name", "rel", "-n", "ns", "--plain-http")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(sortedObjects(r.Stdout)).To(Equal(helmTemplate(inWorkTree(chartTree(parentChartYAML())), "--plain-http")))
		Expect(r.Stdout).To(ContainSubstring("name: rel-database"))
		Expect(r.Stdout).NotTo(ContainSubstring("rel-extra"))
		Expect(r.Stderr).To(Equal("dependency: web 1.1.0 from " + charts.URL + "\n" +
			"dependency: database (chart db) 0.2.0 from " + registry.Repository("charts") + "\n" +
			"dependency: common 0.1.0 from file://../common\n"))
	})

	It("asks each repository once a run and fetches no archive on a second run", func() {
		dir := inWorkTree(chartTree(parentChartYAML()))
		args := []string{dir, "--name", "rel", "--plain-http", "--set", "extra.enabled=true", "--chart-cache", filepath.Join(GinkgoT().TempDir(), "charts")}
		chartRequests.Reset()
		registryRequests.Reset()
		first := render(args...)
		Expect(first.Code).To(Equal(0), first.Stderr)
		Expect(first.Stdout).To(ContainSubstring("name: rel-extra"))
		Expect(chartRequests.Count("/index.yaml")).To(Equal(1), "web and extra come from one repository: its index is read once")
		Expect(chartRequests.Count(".tgz")).To(Equal(2))
		Expect(registryRequests.Count("/blobs/")).NotTo(BeZero())

		chartRequests.Reset()
		registryRequests.Reset()
		second := render(args...)
		Expect(second.Code).To(Equal(0), second.Stderr)
		Expect(second.Stdout).To(Equal(first.Stdout))
		Expect(chartRequests.Count(".tgz")).To(BeZero(), "the archives come from the chart cache")
		Expect(registryRequests.Count("/blobs/")).To(BeZero(), "the chart's layer comes from the chart cache")
		Expect(chartRequests.Count("/index.yaml")).To(Equal(1), "a new run asks for new versions")
	})

	It("maps @name and alias:name through Helm's repositories file, and reaches a private repository with its credentials", func() {
		repos := filepath.Join(GinkgoT().TempDir(), "repositories.yaml")
		_, err := helmCLI.Run(GinkgoT().TempDir(), "repo", "add", "local", charts.URL, "--repository-config", repos)
		Expect(err).NotTo(HaveOccurred())
		_, err = helmCLI.Run(GinkgoT().TempDir(), "repo", "add", "vault", private.URL, "--username", "reader", "--password", "pa55-w0rd", "--repository-config", repos)
		Expect(err).NotTo(HaveOccurred())
		chartYAML := `apiVersion: v2
name: parent
version: 1.0.0
dependencies:
  - name: web
    version: 1.0.0
    repository: "@local"
  - name: secret
    version: ^1
    repository: alias:vault
  - name: common
    version: 0.1.0
    repository: file://../common
`
		r := render(inWorkTree(chartTree(chartYAML)), "--name", "rel", "-n", "ns", "--repository-config", repos)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(sortedObjects(r.Stdout)).To(Equal(helmTemplate(inWorkTree(chartTree(chartYAML)), "--repository-config", repos)))
		Expect(r.Stdout).To(ContainSubstring("name: rel-secret"))
		Expect(r.Stderr).To(ContainSubstring("dependency: web 1.0.0 from " + charts.URL + "\n"))
		Expect(r.Stderr).To(ContainSubstring("dependency: secret 1.0.0 from " + private.URL + "\n"))
		Expect(r.Stdout + r.Stderr).NotTo(ContainSubstring("pa55-w0rd"))

		anonymous := strings.NewReplacer("alias:vault", private.URL, `"@local"`, charts.URL).Replace(chartYAML)
		r = render(inWorkTree(chartTree(anonymous)), "--name", "rel", "--repository-config", noRepos)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("dependency secret from " + private.URL + ": authentication failed"))
		Expect(r.Stderr).To(ContainSubstring("give its credentials in " + noRepos + ": helm repo add NAME URL --username USER --password-stdin"))

		r = render(inWorkTree(chartTree(anonymous)), "--name", "rel", "--repository-config", repos)
		Expect(r.Code).To(Equal(0), "the file's credentials reach the repository by its URL too: %s", r.Stderr)
	})

	DescribeTable("exits 1 with a message for each bad input, and prints no object",
		func(change func(string) string, message string, args ...string) {
			dir := inWorkTree(chartTree(change(parentChartYAML())))
			r := render(append([]string{dir, "--name", "rel", "--plain-http"}, args...)...)
			Expect(r.Code).To(Equal(1), r.Stdout)
			Expect(r.Stdout).To(BeEmpty())
			Expect(r.Stderr).To(ContainSubstring(message))
		},
		Entry("a repository that does not answer", func(y string) string {
			return strings.Replace(y, charts.URL, "http://127.0.0.1:1", 1)
		}, "dependency web from http://127.0.0.1:1: "),
		Entry("a name no repository has", func(y string) string {
			return strings.Replace(y, "repository: "+charts.URL, `repository: "@nope"`, 1)
		}, "no repository is named nope in Helm's repositories file "),
		Entry("a file:// path that leaves the Git work tree", func(y string) string {
			return strings.Replace(y, "file://../common", "file://../../..", 1)
		}, "file://../../.. leaves the source it comes with"),
		Entry("a dependency charts/ does not hold and no repository serves", func(y string) string {
			return strings.Replace(y, "repository: "+charts.URL, "repository: ''", 1)
		}, "dependency web: Chart.yaml gives it no repository and charts/ does not hold it"),
	)

	It("refuses a range no version matches, a lock out of sync and an OCI registry spoken to over HTTPS, each with what to do", func() {
		r := render(inWorkTree(chartTree(strings.Replace(parentChartYAML(), "^1.0.0", "^9", 1))), "--plain-http")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring(`chart web: no version matches "^9" in ` + charts.URL + `; available: 1.1.0, 1.0.0`))

		dir := inWorkTree(chartTree(parentChartYAML()))
		_, err := helmCLI.Run(dir, "dependency", "update", ".", "--plain-http")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.RemoveAll(filepath.Join(dir, "charts"))).To(Succeed())
		r = render(dir, "--plain-http")
		Expect(r.Code).To(Equal(0), "the lock matches: %s", r.Stderr)
		writeTree(dir, map[string]string{"Chart.yaml": strings.Replace(parentChartYAML(), "^1.0.0", "^1.1.0", 1)})
		r = render(dir, "--plain-http")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring(`Chart.lock is out of sync with the dependencies of Chart.yaml: run helm dependency update`))

		r = render(inWorkTree(chartTree(parentChartYAML())))
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("dependency db from " + registry.Repository("charts")))
		Expect(r.Stderr).To(ContainSubstring("--plain-http speaks plain HTTP to the OCI registries of the dependencies"))
	})

	It("keeps the file:// dependencies of a Git SOURCE inside its checkout", func() {
		server, err := gitserver.Start(GinkgoT().TempDir(), gitserver.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(server.Close)
		files := chartTree(parentChartYAML())
		_, err = server.NewRepoWith("deps", files)
		Expect(err).NotTo(HaveOccurred())
		files["charts/parent/Chart.yaml"] = strings.Replace(parentChartYAML(), "file://../common", "file://../../..", 1)
		_, err = server.NewRepoWith("leaving", files)
		Expect(err).NotTo(HaveOccurred())

		r := render(server.HTTPURL("deps")+"//charts/parent", "--plain-http")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("app.kubernetes.io/part-of: parent"))
		Expect(r.Stderr).To(ContainSubstring("dependency: common 0.1.0 from file://../common"))

		r = render(server.HTTPURL("leaving")+"//charts/parent", "--plain-http")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("file://../../.. leaves the source it comes with"))
		Expect(r.Stderr).To(MatchRegexp(`the chart.s file:// dependencies must stay inside \S+/content, the checkout of the Git SOURCE`))
	})

	It("verifies dependencies with --verify: a Helm repository's by --keyring, an OCI registry's by --key", func() {
		key, err := localrepo.NewPGPKey("deps-signer")
		Expect(err).NotTo(HaveOccurred())
		stranger, err := localrepo.NewPGPKey("stranger")
		Expect(err).NotTo(HaveOccurred())
		signed, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(signed.Close)
		Expect(signed.AddSigned(key, greeter("web", "1.1.0"))).To(Succeed())
		signer, err := localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		Expect(registry.SignBundle(context.Background(), "charts", "db", "0.2.0", signer)).To(Succeed())
		files := GinkgoT().TempDir()
		writeTree(files, map[string]string{"pubring.gpg": string(key.Keyring), "stranger.gpg": string(stranger.Keyring), "cosign.pub": string(signer.PublicKeyPEM())})
		keyring, strangers, cosignKey := filepath.Join(files, "pubring.gpg"), filepath.Join(files, "stranger.gpg"), filepath.Join(files, "cosign.pub")
		dir := inWorkTree(chartTree(strings.Replace(parentChartYAML(), "repository: "+charts.URL, "repository: "+signed.URL, 1)))

		r := render(dir, "--plain-http", "--verify", "--keyring", keyring, "--key", cosignKey)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(ContainSubstring("verified: dependency web: Helm provenance of web-1.1.0.tgz"))
		Expect(r.Stderr).To(ContainSubstring("verified: dependency database: cosign signature"))

		r = render(dir, "--plain-http", "--verify", "--keyring", strangers, "--key", cosignKey)
		Expect(r.Code).To(Equal(1), "a chart in the cache is verified again")
		Expect(r.Stderr).To(ContainSubstring("with the keyring stranger.gpg"))

		r = render(dir, "--plain-http", "--verify", "--keyring", keyring)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("--verify of an oci:// dependency needs --key FILE"))

		r = render("../testdata/web", "--verify", "--keyring", keyring)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("--verify verified nothing: SOURCE is not a chart of --repo or oci://"))
	})

	It("applies a chart's dependencies, diffs them first, and applies nothing when one cannot be fetched", func() {
		ns := clitest.NewNamespace()
		dir := inWorkTree(chartTree(parentChartYAML()))
		flags := []string{"-n", ns, "--plain-http", "--chart-cache", cache, "--repository-config", noRepos}

		r := clitest.Wavekit(append([]string{"diff", "deps", dir}, flags...)...)
		Expect(r.Code).To(Equal(1), "changes: %s", r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("deps-database"))

		bad := inWorkTree(chartTree(strings.Replace(parentChartYAML(), charts.URL, "http://127.0.0.1:1", 1)))
		r = clitest.Wavekit(append([]string{"apply", "refused", bad}, flags...)...)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("dependency web from http://127.0.0.1:1"))
		Expect(clitest.InventorySecret(ns, "refused")).To(BeNil(), "nothing is written")

		r = clitest.Wavekit(append([]string{"apply", "deps", dir}, flags...)...)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(ContainSubstring("dependency: database (chart db) 0.2.0 from " + registry.Repository("charts")))
		Expect(clitest.ConfigMap(ns, "deps-web").Data).To(HaveKeyWithValue("version", "1.1.0"))
		Expect(clitest.ConfigMap(ns, "deps-database").Data).To(HaveKeyWithValue("greeting", "from parent to the database"))
		Expect(clitest.ConfigMap(ns, "deps-parent").Labels).To(HaveKeyWithValue("app.kubernetes.io/part-of", "parent"))

		r = clitest.Wavekit(append([]string{"diff", "deps", dir}, flags...)...)
		Expect(r.Code).To(Equal(0), "no changes: %s", r.Stdout)
	})
})
