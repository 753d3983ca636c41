package releases_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/invalidmanifests"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// sourceOf writes a YAML stream as a template folder and returns its path.
func sourceOf(stream string) string {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "source")
	Expect(os.Mkdir(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(stream), 0o600)).To(Succeed())
	return dir
}

// writeRecordingKubeconfig returns a kubeconfig that reaches the test API
// server through a proxy that records every request that would write
// (a write that is not a server-side dry run).
func writeRecordingKubeconfig() (string, func() []string) {
	GinkgoHelper()
	transport, err := rest.TransportFor(rest.CopyConfig(clitest.Env.Config))
	Expect(err).NotTo(HaveOccurred())
	target, err := url.Parse(clitest.Env.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, proxy.FlushInterval = transport, -1
	var mu sync.Mutex
	var writes []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.URL.Query().Get("dryRun") != "All" {
			mu.Lock()
			writes = append(writes, req.Method+" "+req.URL.Path)
			mu.Unlock()
		}
		proxy.ServeHTTP(w, req)
	}))
	DeferCleanup(server.Close)
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(&rest.Config{Host: server.URL}, path)).To(Succeed())
	return path, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), writes...)
	}
}

var _ = Describe("render validates what apply validates", func() {
	// The cases are the engine's validation table: render, without a
	// cluster, refuses each with apply's exit code and message.
	entries := []TableEntry{}
	for _, c := range invalidmanifests.Cases {
		entries = append(entries, Entry(c.Name, c))
	}
	DescribeTable("refuses every input apply refuses, with the same message",
		func(c invalidmanifests.Case) {
			ns := clitest.NewNamespace()
			source := sourceOf(c.YAML("wavekit.dev", ns))
			applied := clitest.Wavekit("apply", "demo", source, "-n", ns)
			Expect(applied.Code).To(Equal(1))
			Expect(applied.Stderr).To(ContainSubstring("invalid manifests: " + c.Want("wavekit.dev", ns)))
			clitest.NothingIn(ns)

			rendered := clitest.WavekitWith(clitest.Unreachable, "render", source, "--name", "demo", "-n", ns)
			if c.NeedsCluster {
				Expect(rendered.Code).To(Equal(0), "a kind nothing offline knows is kept as rendered: %s", rendered.Stderr)
				rendered = clitest.Wavekit("render", source, "--name", "demo", "-n", ns, "--validate")
			}
			Expect(rendered.Code).To(Equal(1))
			Expect(rendered.Stdout).To(BeEmpty())
			Expect(rendered.Stderr).To(Equal(applied.Stderr))
			clitest.NothingIn(ns)
		},
		entries,
	)

	It("refuses a typo in an annotation key, in render and apply, and names the key it meant", func() {
		ns := clitest.NewNamespace()
		source := sourceOf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  annotations:\n    acme.example/apply-ordr: \"2\"\n")
		want := "error: invalid manifests: ConfigMap " + ns + "/typo: unknown annotation acme.example/apply-ordr (did you mean acme.example/apply-order?)\n"
		r := clitest.WavekitWith(clitest.Unreachable, "render", source, "-n", ns, "--operator-name", "acme.example")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal(want))
		r = clitest.Wavekit("apply", "typo", source, "-n", ns, "--operator-name", "acme.example")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal(want))
		clitest.NothingIn(ns)

		r = clitest.WavekitWith(clitest.Unreachable, "render", source, "-n", ns)
		Expect(r.Code).To(Equal(0), "another operator's keys are not wavekit.dev's: %s", r.Stderr)
	})

	DescribeTable("refuses a bad release or operator name before anything is rendered or sent",
		func(render, apply []string, message string) {
			ns := clitest.NewNamespace()
			r := clitest.WavekitWith(clitest.Unreachable, append(render, "-n", ns)...)
			Expect(r.Code).To(Equal(1))
			Expect(r.Stderr).To(Equal("error: " + message + "\n"))
			r = clitest.Wavekit(append(apply, "-n", ns)...)
			Expect(r.Code).To(Equal(1))
			Expect(r.Stderr).To(Equal("error: " + message + "\n"))
			clitest.NothingIn(ns)
		},
		Entry("a release name that is no DNS subdomain",
			[]string{"render", "../testdata/web", "--name", "Bad_Name"}, []string{"apply", "Bad_Name", "../testdata/web"},
			`release name "Bad_Name" is invalid: it names the Secret wavekit.<NAME> and the chart's objects, so it must be a DNS subdomain `+
				`(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit) of at most 53 characters`),
		Entry("a release name longer than Helm allows",
			[]string{"render", "../testdata/web", "--name", strings.Repeat("a", 54)}, []string{"apply", strings.Repeat("a", 54), "../testdata/web"},
			`release name "`+strings.Repeat("a", 54)+`" is invalid: it names the Secret wavekit.<NAME> and the chart's objects, so it must be a DNS subdomain `+
				`(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit) of at most 53 characters`),
		Entry("an operator name with a space",
			[]string{"render", "../testdata/web", "--operator-name", "Bad Name"}, []string{"apply", "web", "../testdata/web", "--operator-name", "Bad Name"},
			`--operator-name: operator name "Bad Name" is invalid: it prefixes annotation and label keys, so it must be a DNS subdomain such as example.com `+
				`(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)`),
	)

	It("says where a release name it made up came from", func() {
		source := sourceOf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
		dir := filepath.Join(filepath.Dir(source), "My_Chart")
		Expect(os.Rename(source, dir)).To(Succeed())
		r := clitest.WavekitWith(clitest.Unreachable, "render", dir)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(HavePrefix(`error: release name "My_Chart" (the name of the source directory; set --name) is invalid`))
	})

	It("with --validate, reports what the API server's schema rejects, and writes nothing", func() {
		ns := clitest.NewNamespace()
		r := clitest.WavekitWith(clitest.Unreachable, "render", "../testdata/rejected", "--name", "bad", "-n", ns)
		Expect(r.Code).To(Equal(0), "offline, only the API server knows: %s", r.Stderr)

		config, writes := writeRecordingKubeconfig()
		r = clitest.WavekitWith(config, "render", "../testdata/rejected", "--name", "bad", "-n", ns, "--validate")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stdout).To(BeEmpty())
		Expect(r.Stderr).To(HavePrefix("error: dry run of applying ConfigMap " + ns + "/Not_A_Valid_Name: "))
		Expect(r.Stderr).To(ContainSubstring(`metadata.name: Invalid value: "Not_A_Valid_Name"`))
		Expect(writes()).To(BeEmpty())
		clitest.NothingIn(ns)
		Expect(clitest.ConfigMap(ns, "bad-config")).To(BeNil())
	})

	It("with --validate, dry-runs a valid source against the cluster and prints it, writing nothing", func() {
		ns := clitest.NewNamespace()
		config, writes := writeRecordingKubeconfig()
		r := clitest.WavekitWith(config, "render", "../testdata/gadgets", "--name", "g", "-n", ns, "--validate")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(decode(r.Stdout)).To(Equal([]string{"CustomResourceDefinition gadgets.cli.test.wavekit.dev", "Gadget g-own"}))
		Expect(writes()).To(BeEmpty())
		clitest.NothingIn(ns)
	})
})
