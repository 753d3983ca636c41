package cli_test

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
	transport, err := rest.TransportFor(rest.CopyConfig(env.Config))
	Expect(err).NotTo(HaveOccurred())
	target, err := url.Parse(env.Config.Host)
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
			ns := newNamespace()
			source := sourceOf(c.YAML("wavekit.dev", ns))
			applied := wavekit("apply", "demo", source, "-n", ns)
			Expect(applied.code).To(Equal(1))
			Expect(applied.stderr).To(ContainSubstring("invalid manifests: " + c.Want("wavekit.dev", ns)))
			nothingIn(ns)

			rendered := wavekitWith(unreachable, "render", source, "--name", "demo", "-n", ns)
			if c.NeedsCluster {
				Expect(rendered.code).To(Equal(0), "a kind nothing offline knows is kept as rendered: %s", rendered.stderr)
				rendered = wavekit("render", source, "--name", "demo", "-n", ns, "--validate")
			}
			Expect(rendered.code).To(Equal(1))
			Expect(rendered.stdout).To(BeEmpty())
			Expect(rendered.stderr).To(Equal(applied.stderr))
			nothingIn(ns)
		},
		entries,
	)

	It("refuses a typo in an annotation key, in render and apply, and names the key it meant", func() {
		ns := newNamespace()
		source := sourceOf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  annotations:\n    acme.example/apply-ordr: \"2\"\n")
		want := "error: invalid manifests: ConfigMap " + ns + "/typo: unknown annotation acme.example/apply-ordr (did you mean acme.example/apply-order?)\n"
		r := wavekitWith(unreachable, "render", source, "-n", ns, "--operator-name", "acme.example")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(Equal(want))
		r = wavekit("apply", "typo", source, "-n", ns, "--operator-name", "acme.example")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(Equal(want))
		nothingIn(ns)

		r = wavekitWith(unreachable, "render", source, "-n", ns)
		Expect(r.code).To(Equal(0), "another operator's keys are not wavekit.dev's: %s", r.stderr)
	})

	DescribeTable("refuses a bad release or operator name before anything is rendered or sent",
		func(render, apply []string, message string) {
			ns := newNamespace()
			r := wavekitWith(unreachable, append(render, "-n", ns)...)
			Expect(r.code).To(Equal(1))
			Expect(r.stderr).To(Equal("error: " + message + "\n"))
			r = wavekit(append(apply, "-n", ns)...)
			Expect(r.code).To(Equal(1))
			Expect(r.stderr).To(Equal("error: " + message + "\n"))
			nothingIn(ns)
		},
		Entry("a release name that is no DNS subdomain",
			[]string{"render", "testdata/web", "--name", "Bad_Name"}, []string{"apply", "Bad_Name", "testdata/web"},
			`release name "Bad_Name" is invalid: it names the Secret wavekit.<NAME> and the chart's objects, so it must be a DNS subdomain `+
				`(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit) of at most 53 characters`),
		Entry("a release name longer than Helm allows",
			[]string{"render", "testdata/web", "--name", strings.Repeat("a", 54)}, []string{"apply", strings.Repeat("a", 54), "testdata/web"},
			`release name "`+strings.Repeat("a", 54)+`" is invalid: it names the Secret wavekit.<NAME> and the chart's objects, so it must be a DNS subdomain `+
				`(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit) of at most 53 characters`),
		Entry("an operator name with a space",
			[]string{"render", "testdata/web", "--operator-name", "Bad Name"}, []string{"apply", "web", "testdata/web", "--operator-name", "Bad Name"},
			`--operator-name: operator name "Bad Name" is invalid: it prefixes annotation and label keys, so it must be a DNS subdomain such as example.com `+
				`(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)`),
	)

	It("says where a release name it made up came from", func() {
		source := sourceOf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
		dir := filepath.Join(filepath.Dir(source), "My_Chart")
		Expect(os.Rename(source, dir)).To(Succeed())
		r := wavekitWith(unreachable, "render", dir)
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(HavePrefix(`error: release name "My_Chart" (the name of the source directory; set --name) is invalid`))
	})

	It("with --validate, reports what the API server's schema rejects, and writes nothing", func() {
		ns := newNamespace()
		r := wavekitWith(unreachable, "render", "testdata/rejected", "--name", "bad", "-n", ns)
		Expect(r.code).To(Equal(0), "offline, only the API server knows: %s", r.stderr)

		config, writes := writeRecordingKubeconfig()
		r = wavekitWith(config, "render", "testdata/rejected", "--name", "bad", "-n", ns, "--validate")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(BeEmpty())
		Expect(r.stderr).To(HavePrefix("error: dry run of applying ConfigMap " + ns + "/Not_A_Valid_Name: "))
		Expect(r.stderr).To(ContainSubstring(`metadata.name: Invalid value: "Not_A_Valid_Name"`))
		Expect(writes()).To(BeEmpty())
		nothingIn(ns)
		Expect(configMap(ns, "bad-config")).To(BeNil())
	})

	It("with --validate, dry-runs a valid source against the cluster and prints it, writing nothing", func() {
		ns := newNamespace()
		config, writes := writeRecordingKubeconfig()
		r := wavekitWith(config, "render", "testdata/gadgets", "--name", "g", "-n", ns, "--validate")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(decode(r.stdout)).To(Equal([]string{"CustomResourceDefinition gadgets.cli.test.wavekit.dev", "Gadget g-own"}))
		Expect(writes()).To(BeEmpty())
		nothingIn(ns)
	})
})
