package docs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("examples/", Ordered, func() {
	var env *testcluster.Env
	ctx := context.Background()

	BeforeAll(func() {
		flux, err := testcluster.FluxSourceCRDs()
		Expect(err).NotTo(HaveOccurred())
		env, err = testcluster.Start(testcluster.Options{ExtraCRDDirs: []string{flux}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	})

	It("holds only objects the API server accepts as they are, with strict field validation", func() {
		files, err := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		components := 0
		for _, file := range files {
			if filepath.Base(file) == "operator-values.yaml" { // chart values: test/chart installs the chart with them
				continue
			}
			data, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			objects, err := manifests.DecodeObjects(filepath.Base(file), data)
			Expect(err).NotTo(HaveOccurred(), file)
			Expect(objects).NotTo(BeEmpty(), file)
			for _, u := range objects {
				if u.GetKind() == "Component" {
					components++
				}
				Expect(env.Client.Create(ctx, u, client.DryRunAll, client.FieldValidation("Strict"))).To(Succeed(),
					"%s: %s %s", filepath.Base(file), u.GetKind(), u.GetName())
			}
		}
		Expect(components).To(BeNumerically(">=", 5))
	})

	It("renders the Go template folder with its values, in two waves", func() {
		var stdout, stderr bytes.Buffer
		code := cli.Run(ctx, []string{"render", filepath.Join(root, "examples/templates/web"), "--name", "shop", "-n", "web",
			"-f", filepath.Join(root, "examples/templates/web-values.yaml")}, &stdout, &stderr)
		Expect(code).To(Equal(0), stderr.String())
		objects, err := manifests.DecodeObjects("render", stdout.Bytes())
		Expect(err).NotTo(HaveOccurred())
		Expect(objects).To(HaveLen(2))
		Expect(objects[0].GetKind()).To(Equal("ConfigMap"))
		Expect(objects[1].GetAnnotations()).To(HaveKeyWithValue("wavekit.dev/apply-order", "1"))
		Expect(strings.Count(stdout.String(), "image: nginx:1.27")).To(Equal(1))
	})
})
