package chart_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// makeOutput runs make with args in the module root and returns its standard output.
func makeOutput(args ...string) string {
	GinkgoHelper()
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "make %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// The image tag, the chart's appVersion and its version all come from `make version`: the
// packaged chart's default image is the very reference `make image` builds.
var _ = Describe("one version", func() {
	It("tags the image and sets the packaged chart's appVersion and version from make version", func() {
		version := strings.TrimSpace(makeOutput("-s", "version"))
		Expect(version).To(MatchRegexp(`^v\d+\.\d+\.\d+`))

		image := regexp.MustCompile(` -image (\S+) `).FindStringSubmatch(makeOutput("-n", "image"))
		Expect(image).NotTo(BeNil(), "make -n image names the image it builds with -image")
		Expect(image[1]).To(Equal("ghcr.io/wavekit-dev/component-operator:" + version))

		dist := GinkgoT().TempDir()
		makeOutput("-s", "chart-package", "DIST="+dist)
		packaged, err := filepath.Glob(filepath.Join(dist, "component-operator-*.tgz"))
		Expect(err).NotTo(HaveOccurred())
		Expect(packaged).To(Equal([]string{filepath.Join(dist, "component-operator-"+strings.TrimPrefix(version, "v")+".tgz")}))

		show, err := helm("show", "chart", packaged[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(show).To(ContainSubstring("\nappVersion: " + version + "\n"))
		Expect(show).To(ContainSubstring("\nversion: " + strings.TrimPrefix(version, "v") + "\n"))

		out, err := helm("template", "wavekit", packaged[0], "--namespace", "wavekit-system")
		Expect(err).NotTo(HaveOccurred())
		objects, err := manifests.DecodeObjects("helm template", []byte(out))
		Expect(err).NotTo(HaveOccurred())
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Image).To(Equal(image[1]), "the packaged chart's default image is the one make image builds")
	})
})

// helm package stamps each file with the time it packages it; make stamps
// them with the commit's, so that a commit packages to one digest.
var _ = Describe("chart archives", func() {
	It("are the same bytes each time make packages them, every file stamped with the commit's time", func() {
		epoch, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output()
		Expect(err).NotTo(HaveOccurred())
		seconds, err := strconv.ParseInt(strings.TrimSpace(string(epoch)), 10, 64)
		Expect(err).NotTo(HaveOccurred())
		first, second := GinkgoT().TempDir(), GinkgoT().TempDir()
		makeOutput("-s", "chart-package", "agent-chart-package", "DIST="+first)
		makeOutput("-s", "chart-package", "agent-chart-package", "DIST="+second)
		archives, err := filepath.Glob(filepath.Join(first, "*.tgz"))
		Expect(err).NotTo(HaveOccurred())
		Expect(archives).To(HaveLen(2))
		for _, archive := range archives {
			data, err := os.ReadFile(archive)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.ReadFile(filepath.Join(second, filepath.Base(archive)))).To(Equal(data), filepath.Base(archive))
			zr, err := gzip.NewReader(bytes.NewReader(data))
			Expect(err).NotTo(HaveOccurred())
			tr := tar.NewReader(zr)
			files := 0
			for header, err := tr.Next(); err == nil; header, err = tr.Next() {
				Expect(header.ModTime.Unix()).To(Equal(seconds), header.Name)
				files++
			}
			Expect(files).To(BeNumerically(">", 5))
		}
	})
})
