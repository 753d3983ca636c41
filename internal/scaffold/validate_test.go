package scaffold_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/scaffold"
)

// validOptions are options that Validate accepts.
func validOptions() scaffold.Options {
	return scaffold.Options{
		Module: "example.com/acme/redis-operator", Group: "cache.acme.io",
		Kind: "Redis", Generator: "helm", WavekitVersion: "v0.3.0",
	}
}

var _ = Describe("Validate", func() {
	It("accepts valid options and fills in the defaults", func() {
		Expect(validOptions().Validate()).To(Succeed())
	})

	DescribeTable("rejects bad options with a message that names the flag",
		func(change func(*scaffold.Options), want string) {
			opts := validOptions()
			change(&opts)
			err := opts.Validate()
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("missing module", func(o *scaffold.Options) { o.Module = "" }, "--module is required"),
		Entry("bad module path", func(o *scaffold.Options) { o.Module = "Example Com/x y" }, `--module: malformed module path "Example Com/x y": invalid char ' '`),
		Entry("missing group", func(o *scaffold.Options) { o.Group = "" }, "--group is required"),
		Entry("group without a dot", func(o *scaffold.Options) { o.Group = "cache" }, `--group "cache" must be`),
		Entry("upper-case group", func(o *scaffold.Options) { o.Group = "Cache.acme.io" }, `--group "Cache.acme.io"`),
		Entry("bad version", func(o *scaffold.Options) { o.Version = "1.0" }, `--version "1.0"`),
		Entry("missing kind", func(o *scaffold.Options) { o.Kind = "" }, "--kind is required"),
		Entry("lower-case kind", func(o *scaffold.Options) { o.Kind = "redis" }, `--kind "redis" must start with an upper-case letter`),
		Entry("kind with a dash", func(o *scaffold.Options) { o.Kind = "My-Redis" }, `--kind "My-Redis"`),
		Entry("bad operator name", func(o *scaffold.Options) { o.OperatorName = "Acme_Ops" }, `--operator-name: operator name "Acme_Ops" is invalid`),
		Entry("unknown generator", func(o *scaffold.Options) { o.Generator = "jsonnet" }, `--generator "jsonnet" must be one of helm, kustomize, template, custom`),
		Entry("image with a space", func(o *scaffold.Options) { o.Image = "a b" }, `--image "a b"`),
		Entry("bad wavekit version", func(o *scaffold.Options) { o.WavekitVersion = "0.3" }, `--wavekit-version "0.3" is not a valid module version`),
	)

	It("reports every problem at once", func() {
		err := scaffold.Options{Generator: "x"}.Validate()
		Expect(err).To(HaveOccurred())
		for _, want := range []string{"--module", "--group", "--kind", "--generator"} {
			Expect(err.Error()).To(ContainSubstring(want))
		}
	})
})

var _ = Describe("Generate", func() {
	It("refuses a directory that is not empty and writes nothing", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644)).To(Succeed())
		_, err := scaffold.Generate(dir, validOptions())
		Expect(err).To(MatchError(ContainSubstring("is not empty (it holds keep.txt)")))
		entries, _ := os.ReadDir(dir)
		Expect(entries).To(HaveLen(1))
	})

	It("refuses a file as the output directory", func() {
		file := filepath.Join(GinkgoT().TempDir(), "file")
		Expect(os.WriteFile(file, nil, 0o644)).To(Succeed())
		_, err := scaffold.Generate(file, validOptions())
		Expect(err).To(MatchError(ContainSubstring("is not a directory")))
	})

	It("writes nothing for invalid options", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "new")
		opts := validOptions()
		opts.Kind = "bad kind"
		_, err := scaffold.Generate(dir, opts)
		Expect(err).To(HaveOccurred())
		Expect(dir).NotTo(BeAnExistingFile())
	})

	DescribeTable("writes a project into a new directory",
		func(generator string, want ...string) {
			dir := filepath.Join(GinkgoT().TempDir(), "project")
			opts := validOptions()
			opts.Generator = generator
			files, err := scaffold.Generate(dir, opts)
			Expect(err).NotTo(HaveOccurred())
			common := []string{"go.mod", "go.sum", "main.go", "Makefile", "Dockerfile", "README.md",
				"api/v1alpha1/redis_types.go", "api/v1alpha1/groupversion_info.go", "api/v1alpha1/zz_generated.deepcopy.go",
				"pkg/operator/operator.go", "pkg/operator/generator.go", "pkg/operator/suite_test.go",
				"config/samples/cache.acme.io_v1alpha1_redis.yaml", "config/chart/Chart.yaml",
				"config/chart/templates/deployment.yaml", "hack/tools/go.mod"}
			Expect(files).To(ContainElements(append(common, want...)))
			gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(gomod)).To(ContainSubstring("module example.com/acme/redis-operator\n"))
			Expect(string(gomod)).To(ContainSubstring("sigs.k8s.io/controller-runtime v"))
			Expect(string(gomod)).NotTo(ContainSubstring("replace"))
		},
		Entry("helm", "helm", "pkg/operator/manifests/chart/Chart.yaml", "pkg/operator/manifests/chart/templates/configmap.yaml"),
		Entry("kustomize", "kustomize", "pkg/operator/manifests/kustomization/kustomization.yaml"),
		Entry("template", "template", "pkg/operator/manifests/templates/configmap.yaml", "pkg/operator/manifests/templates/_helpers.tpl"),
		Entry("custom", "custom"),
	)
})
