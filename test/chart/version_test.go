package chart_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
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
