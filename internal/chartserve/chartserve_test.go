package chartserve_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/chartserve"
)

var _ = Describe("serving a directory of charts", func() {
	It("lists every chart under the directory in index.yaml, and serves archives helm loads", func() {
		dir := GinkgoT().TempDir()
		writeChart(filepath.Join(dir, "alpha"), "alpha", "1.0.0")
		writeChart(filepath.Join(dir, "beta"), "beta", "0.2.0")
		Expect(os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a chart"), 0o644)).To(Succeed())
		Expect(os.Mkdir(filepath.Join(dir, "empty"), 0o755)).To(Succeed())
		s := start(0, dir)

		index := fetchIndex(s.URL)
		Expect(index.Entries).To(HaveLen(2))
		for name, version := range map[string]string{"alpha": "1.0.0", "beta": "0.2.0"} {
			Expect(index.Entries).To(HaveKey(name))
			cv := index.Entries[name][0]
			Expect(cv.Version).To(Equal(version))
			Expect(cv.URLs).To(Equal([]string{name + "-" + version + ".tgz"}), "relative, as helm repo index writes them")
			Expect(cv.Digest).NotTo(BeEmpty())
			ch := fetchChart(s.URL + "/" + cv.URLs[0])
			Expect(ch.Name()).To(Equal(name))
			Expect(ch.Metadata.Version).To(Equal(version))
			Expect(ch.Templates).To(HaveLen(1))
		}
	})

	It("serves a directory that is itself a chart: the example of the offline quick start", func() {
		s := start(0, filepath.Join("..", "..", "examples", "charts", "hello-web"))
		index := fetchIndex(s.URL)
		Expect(index.Entries).To(HaveKey("hello-web"))
		ch := fetchChart(s.URL + "/" + index.Entries["hello-web"][0].URLs[0])
		Expect(ch.Metadata.Version).To(Equal("0.1.0"))
		Expect(ch.Values).To(HaveKeyWithValue("replicas", BeNumerically("==", 2)))
	})

	It("packages the charts again at each start, so that edits show", func() {
		dir := GinkgoT().TempDir()
		writeChart(filepath.Join(dir, "alpha"), "alpha", "1.0.0")
		first := start(0, dir)
		Expect(first.Close()).To(Succeed())
		writeChart(filepath.Join(dir, "alpha"), "alpha", "1.1.0")
		Expect(fetchIndex(start(0, dir).URL).Entries["alpha"][0].Version).To(Equal("1.1.0"))
	})

	It("refuses a directory that holds no chart, naming it, and leaves the port free", func() {
		dir := GinkgoT().TempDir()
		Expect(os.Mkdir(filepath.Join(dir, "nested"), 0o755)).To(Succeed())
		port := freePort()
		_, err := chartserve.Start(port, dir)
		Expect(err).To(MatchError(ContainSubstring(dir + " holds no chart: neither it nor a directory directly under it has a Chart.yaml")))
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		Expect(err).NotTo(HaveOccurred(), "the port is free again")
		Expect(l.Close()).To(Succeed())
	})

	It("refuses two charts of the same name and version, naming both", func() {
		one, two := GinkgoT().TempDir(), GinkgoT().TempDir()
		writeChart(one, "alpha", "1.0.0")
		writeChart(two, "alpha", "1.0.0")
		_, err := chartserve.Start(0, one, two)
		Expect(err).To(MatchError(ContainSubstring("charts " + one + " and " + two + " are both alpha 1.0.0")))
	})

	It("refuses a port another program listens on, naming the port", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		dir := GinkgoT().TempDir()
		writeChart(dir, "alpha", "1.0.0")
		_, err = chartserve.Start(port, dir)
		Expect(err).To(MatchError(ContainSubstring("port " + strconv.Itoa(port) + " on 127.0.0.1 is taken by another program")))
	})

	It("stops serving and removes its archives on Close", func() {
		dir := GinkgoT().TempDir()
		writeChart(dir, "alpha", "1.0.0")
		s, err := chartserve.Start(0, dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.URL).To(HavePrefix("http://127.0.0.1:"))
		Expect(s.Close()).To(Succeed())
		_, err = http.Get(s.URL + "/index.yaml")
		Expect(err).To(HaveOccurred())
	})
})

// writeChart writes a chart of one ConfigMap into dir.
func writeChart(dir, name, version string) {
	GinkgoHelper()
	Expect(os.MkdirAll(filepath.Join(dir, "templates"), 0o755)).To(Succeed())
	files := map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: " + name + "\nversion: " + version + "\n",
		"values.yaml":       "greeting: hello\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  greeting: {{ .Values.greeting }}\n",
	}
	for file, content := range files {
		Expect(os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644)).To(Succeed())
	}
}

func start(port int, dirs ...string) *chartserve.Server {
	GinkgoHelper()
	s, err := chartserve.Start(port, dirs...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = s.Close() })
	return s
}

func get(url string) []byte {
	GinkgoHelper()
	resp, err := http.Get(url)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK), url)
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return body
}

func fetchIndex(url string) *repo.IndexFile {
	GinkgoHelper()
	var index repo.IndexFile
	Expect(yaml.Unmarshal(get(url+"/index.yaml"), &index)).To(Succeed())
	return &index
}

func fetchChart(url string) *chart.Chart {
	GinkgoHelper()
	ch, err := loader.LoadArchive(bytes.NewReader(get(url)))
	Expect(err).NotTo(HaveOccurred(), url)
	return ch
}

func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
