package fetch_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/httpcount"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// newFetcher returns a Fetcher over a fresh cache bounded at 1 GiB.
func newFetcher(opts ...fetch.Option) (*fetch.Fetcher, *fetch.Cache) {
	cache, err := fetch.NewCache(GinkgoT().TempDir(), 1<<30)
	Expect(err).NotTo(HaveOccurred())
	return fetch.NewFetcher(cache, opts...), cache
}

// counter counts the requests a test server answers, by path.
type counter = httpcount.Counter

func newCounter() *counter { return httpcount.New() }

// testChart is chart name at version: a Chart.yaml and one template, in
// which note goes, to tell two archives of one version apart.
func testChart(name, version, note string) localrepo.Chart {
	return localrepo.Chart{Name: name, Version: version, Templates: map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  note: " + note + "\n",
	}}
}

// packageChart packages testChart(name, version, note) into dir and returns
// the archive's path.
func packageChart(dir, name, version, note string) string {
	archive, err := localrepo.PackageChart(dir, testChart(name, version, note))
	Expect(err).NotTo(HaveOccurred())
	return archive
}

// chartVersionIn loads the chart in dir as Helm would and returns its version.
func chartVersionIn(dir string) string {
	ch, err := loader.LoadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	return ch.Metadata.Version
}

// helmRepo is a Helm repository over HTTP(S): charts the test packages,
// and an index.yaml the Helm SDK builds from them.
type helmRepo struct {
	*httptest.Server
	dir      string
	requests *counter
}

type repoOptions struct {
	tls                bool
	username, password string
	token              string         // a bearer token it requires
	clientCA           *x509.CertPool // with tls: a client certificate of this CA it requires
	noDigest           bool           // an index that gives no archive digests
}

// newHelmRepo serves the charts, each name with its versions.
func newHelmRepo(opts repoOptions, charts map[string][]string) *helmRepo {
	r := &helmRepo{dir: GinkgoT().TempDir(), requests: newCounter()}
	for name, versions := range charts {
		for _, v := range versions {
			packageChart(r.dir, name, v, "original")
		}
	}
	index, err := repo.IndexDirectory(r.dir, "") // relative URLs: the fetcher resolves them
	Expect(err).NotTo(HaveOccurred())
	index.SortEntries()
	if opts.noDigest {
		for _, versions := range index.Entries {
			for _, cv := range versions {
				cv.Digest = ""
			}
		}
	}
	Expect(index.WriteFile(filepath.Join(r.dir, "index.yaml"), 0o644)).To(Succeed())

	var h http.Handler = http.FileServer(http.Dir(r.dir))
	if opts.username != "" {
		h = requireLogin(opts.username, opts.password, h)
	}
	if opts.token != "" {
		h = requireToken(opts.token, h)
	}
	h = r.requests.Wrap(h)
	r.Server = httptest.NewUnstartedServer(h)
	r.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	if opts.clientCA != nil {
		r.TLS = &tls.Config{ClientCAs: opts.clientCA, ClientAuth: tls.RequireAndVerifyClientCert}
	}
	if opts.tls {
		r.StartTLS()
	} else {
		r.Start()
	}
	DeferCleanup(r.Close)
	return r
}

// requireLogin answers 401 to requests without the given basic-auth login.
func requireLogin(username, password string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != username || p != password {
			w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// requireToken answers 401 to requests without the bearer token.
func requireToken(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// clientCertificate makes a self-signed client certificate and its key,
// as PEM, and the pool that trusts it.
func clientCertificate() (certPEM, keyPEM []byte, pool *x509.CertPool) {
	GinkgoHelper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chart-reader"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	Expect(err).NotTo(HaveOccurred())
	cert, err := x509.ParseCertificate(der)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalECPrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), pool
}

// ociRegistry is a distribution registry, in memory, in this process,
// that counts the requests it answers.
type ociRegistry struct {
	*localregistry.Registry
	requests *counter
}

// newOCIRegistry starts a registry; with a username, it requires that
// login (htpasswd, bcrypt).
func newOCIRegistry(username, password string) *ociRegistry {
	r := &ociRegistry{requests: newCounter()}
	reg, err := localregistry.Start(localregistry.Options{
		Username: username, Password: password, Wrap: r.requests.Wrap, Log: GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(reg.Close)
	r.Registry = reg
	return r
}

// repository is the oci:// URL charts are pushed under.
func (r *ociRegistry) repository() string { return r.Repository("charts") }

// push packages chart name at version and pushes it with Helm's client.
func (r *ociRegistry) push(name, version string) {
	Expect(r.Push("charts", testChart(name, version, "original"))).To(Succeed())
}

// tarEntry is one entry of a test archive.
type tarEntry struct {
	name, body, link string
	typeflag         byte
}

func file(name, body string) tarEntry { return tarEntry{name: name, body: body, typeflag: tar.TypeReg} }

func symlink(name, target string) tarEntry {
	return tarEntry{name: name, link: target, typeflag: tar.TypeSymlink}
}

// tarGz builds a .tar.gz of the entries, in order.
func tarGz(entries ...tarEntry) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typeflag, Mode: 0o644, Size: int64(len(e.body))}
		if e.typeflag == tar.TypeDir {
			hdr.Mode = 0o755
		}
		Expect(tw.WriteHeader(hdr)).To(Succeed())
		_, err := tw.Write([]byte(e.body))
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(tw.Close()).To(Succeed())
	Expect(zw.Close()).To(Succeed())
	return buf.Bytes()
}

func sha256Of(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// serveFiles serves the files by path ("/a.tar.gz") and counts requests.
func serveFiles(files map[string][]byte) (*httptest.Server, *counter) {
	requests := newCounter()
	srv := httptest.NewServer(requests.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	})))
	DeferCleanup(srv.Close)
	return srv, requests
}

// cacheEntries lists the entry directories in a cache directory.
func cacheEntries(dir string) []string {
	des, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), "chart-") || strings.HasPrefix(de.Name(), "artifact-") {
			names = append(names, de.Name())
		}
	}
	return names
}
