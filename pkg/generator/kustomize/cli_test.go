package kustomize_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/generator/kustomize"
)

// These specs build the kustomize CLI pinned in hack/tools/go.mod (v5.8.2,
// which uses the same kustomize API as the generator) and compare its output
// with the generator's objects.
var _ = Describe("compared with kustomize build", Ordered, func() {
	var cli string

	BeforeAll(func() {
		dir, err := os.MkdirTemp("", "wavekit-kustomize-cli-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		cli = filepath.Join(dir, "kustomize")
		cmd := exec.Command("go", "build", "-modfile=hack/tools/go.mod", "-o", cli, "sigs.k8s.io/kustomize/kustomize/v5")
		cmd.Dir = testcluster.ModuleRoot()
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		output, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "building the kustomize CLI: %s", output)
	})

	DescribeTable("builds the same objects in the same order",
		func(dir string, count int) {
			want, err := exec.Command(cli, "build", filepath.Join("testdata", dir)).Output()
			Expect(err).NotTo(HaveOccurred(), "kustomize build %s", dir)

			g, err := kustomize.NewGeneratorFromDir("testdata", dir)
			Expect(err).NotTo(HaveOccurred())
			objects, err := g.Generate(context.Background(), "ignored", "ignored", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(objects).To(HaveLen(count))
			Expect(contents(objects)).To(Equal(decode(want)))
		},
		Entry("a base with labels and a configMapGenerator", "base", 4),
		Entry("an overlay with namespace, namePrefix, commonLabels, a strategic merge patch, images and a merging configMapGenerator", "overlays/dev", 4),
		Entry("an overlay with a component, JSON 6902 patches, images by name and digest, replicas, labels, nameSuffix and a secretGenerator", "overlays/prod", 7),
	)
})
