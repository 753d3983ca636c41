package release_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/release"
)

func TestRelease(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "release")
}

var commit = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)

// chartArchive writes a gzipped tar of files, each stamped with at, as
// helm package writes one, and returns its path.
func chartArchive(dir string, at time.Time, files ...string) string {
	GinkgoHelper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.ModTime, zw.Name = at, "chart.tgz"
	tw := tar.NewWriter(zw)
	for _, name := range files {
		Expect(tw.WriteHeader(&tar.Header{Name: "wavekit/" + name, Mode: 0o644, Size: int64(len(name)), ModTime: at, Uname: "someone"})).To(Succeed())
		_, err := tw.Write([]byte(name))
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(tw.Close()).To(Succeed())
	Expect(zw.Close()).To(Succeed())
	path := filepath.Join(dir, at.Format("150405")+".tgz")
	Expect(os.WriteFile(path, buf.Bytes(), 0o644)).To(Succeed())
	return path
}

var _ = Describe("NormalizeChart", func() {
	It("makes two packagings of one chart, minutes apart, the same bytes, and keeps every file", func() {
		dir := GinkgoT().TempDir()
		first := chartArchive(dir, time.Now(), "Chart.yaml", "values.yaml", "templates/a.yaml")
		second := chartArchive(dir, time.Now().Add(3*time.Minute), "Chart.yaml", "values.yaml", "templates/a.yaml")
		Expect(os.ReadFile(first)).NotTo(Equal(must(os.ReadFile(second))))
		Expect(release.NormalizeChart(first, commit)).To(Succeed())
		Expect(release.NormalizeChart(second, commit)).To(Succeed())
		Expect(os.ReadFile(first)).To(Equal(must(os.ReadFile(second))))

		zr, err := gzip.NewReader(bytes.NewReader(must(os.ReadFile(first))))
		Expect(err).NotTo(HaveOccurred())
		tr := tar.NewReader(zr)
		var names []string
		for header, err := tr.Next(); err == nil; header, err = tr.Next() {
			names = append(names, header.Name)
			Expect(header.ModTime.UTC()).To(Equal(commit))
			Expect(header.Uname).To(BeEmpty())
		}
		Expect(names).To(Equal([]string{"wavekit/Chart.yaml", "wavekit/values.yaml", "wavekit/templates/a.yaml"}))
	})
})

var _ = Describe("SBOM", func() {
	It("lists every module go version -m lists of a binary, with the same versions, the same each time", func() {
		// hack/release itself: cyclonedx-go, in-toto, protobuf and theirs.
		binary := filepath.Join(GinkgoT().TempDir(), "release")
		build := exec.Command("go", "build", "-trimpath", "-o", binary, "../../hack/release")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		Expect(build.CombinedOutput()).Error().NotTo(HaveOccurred())
		out, err := exec.Command("go", "version", "-m", binary).Output()
		Expect(err).NotTo(HaveOccurred())
		want, last := map[string]string{}, ""
		for _, line := range strings.Split(string(out), "\n") {
			fields := strings.Fields(line)
			switch {
			case len(fields) >= 3 && fields[0] == "dep":
				want[fields[1]], last = fields[2], fields[1]
			case len(fields) >= 3 && fields[0] == "=>": // the replacement is what the binary holds
				delete(want, last)
				want[fields[1]] = fields[2]
			}
		}
		Expect(want).To(HaveKey("github.com/CycloneDX/cyclonedx-go"))
		Expect(want).To(HaveKey("google.golang.org/protobuf"))

		bom, err := release.SBOM(binary, "release", commit)
		Expect(err).NotTo(HaveOccurred())
		got := map[string]string{}
		for _, c := range *bom.Components {
			got[c.Name] = c.Version
			Expect(c.PackageURL).To(Equal("pkg:golang/" + c.Name + "@" + c.Version))
		}
		Expect(got).To(Equal(want))
		Expect(bom.Metadata.Timestamp).To(Equal("2026-11-28T10:00:00Z"))
		Expect(*bom.Metadata.Component.Properties).To(ContainElement(HaveField("Name", "go:build:GOARCH")))

		dir := GinkgoT().TempDir()
		Expect(release.WriteSBOM(bom, filepath.Join(dir, "a.json"))).To(Succeed())
		again, err := release.SBOM(binary, "release", commit)
		Expect(err).NotTo(HaveOccurred())
		Expect(release.WriteSBOM(again, filepath.Join(dir, "b.json"))).To(Succeed())
		Expect(os.ReadFile(filepath.Join(dir, "a.json"))).To(Equal(must(os.ReadFile(filepath.Join(dir, "b.json")))))
		var doc map[string]any
		Expect(json.Unmarshal(must(os.ReadFile(filepath.Join(dir, "a.json"))), &doc)).To(Succeed())
		Expect(doc).To(HaveKeyWithValue("bomFormat", "CycloneDX"))
		Expect(doc).To(HaveKeyWithValue("specVersion", "1.6"))
	})
})

var _ = Describe("Provenance", func() {
	It("names every artifact by its digest, the commit and the builder, the same bytes each time", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "wavekit-v1.0.0-linux-amd64"), []byte("binary"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "component-operator-1.0.0.tgz"), []byte("chart"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte("sums"), 0o644)).To(Succeed())
		subjects, err := release.Subjects(dir, "SHA256SUMS")
		Expect(err).NotTo(HaveOccurred())
		Expect(subjects).To(Equal(map[string]string{
			"wavekit-v1.0.0-linux-amd64":   digestOf("binary"),
			"component-operator-1.0.0.tgz": digestOf("chart"),
		}))
		build := release.Build{Target: "dist", Version: "v1.0.0", Repository: "https://github.com/wavekit-dev/wavekit",
			Revision: "0123456789abcdef0123456789abcdef01234567", Builder: "https://wavekit.dev/builders/local", GoVersion: "go1.25"}
		first, err := release.Provenance(subjects, build)
		Expect(err).NotTo(HaveOccurred())
		second, err := release.Provenance(subjects, build)
		Expect(err).NotTo(HaveOccurred())
		Expect(first).To(Equal(second))
		var statement struct {
			Type          string `json:"_type"`
			PredicateType string `json:"predicateType"`
			Subject       []struct {
				Name   string            `json:"name"`
				Digest map[string]string `json:"digest"`
			} `json:"subject"`
			Predicate struct {
				BuildDefinition struct {
					BuildType            string         `json:"buildType"`
					ExternalParameters   map[string]any `json:"externalParameters"`
					ResolvedDependencies []struct {
						URI    string            `json:"uri"`
						Digest map[string]string `json:"digest"`
					} `json:"resolvedDependencies"`
				} `json:"buildDefinition"`
				RunDetails struct {
					Builder struct {
						ID string `json:"id"`
					} `json:"builder"`
				} `json:"runDetails"`
			} `json:"predicate"`
		}
		Expect(json.Unmarshal(first, &statement)).To(Succeed())
		Expect(statement.Type).To(Equal("https://in-toto.io/Statement/v1"))
		Expect(statement.PredicateType).To(Equal("https://slsa.dev/provenance/v1"))
		Expect(statement.Subject).To(HaveLen(2))
		Expect(statement.Subject[0].Name).To(Equal("component-operator-1.0.0.tgz"))
		Expect(statement.Subject[0].Digest).To(HaveKeyWithValue("sha256", digestOf("chart")))
		Expect(statement.Predicate.BuildDefinition.BuildType).To(Equal(release.BuildType))
		Expect(statement.Predicate.BuildDefinition.ExternalParameters).To(HaveKeyWithValue("target", "dist"))
		Expect(statement.Predicate.BuildDefinition.ResolvedDependencies[0].Digest).To(HaveKeyWithValue("gitCommit", build.Revision))
		Expect(statement.Predicate.RunDetails.Builder.ID).To(Equal(build.Builder))
	})
})

// digestOf is the hex SHA-256 of s.
func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func must[T any](v T, err error) T {
	Expect(err).NotTo(HaveOccurred())
	return v
}
