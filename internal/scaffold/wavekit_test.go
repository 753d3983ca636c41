package scaffold_test

import (
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/scaffold"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// Which wavekit a project builds against, when the options name none, is
// decided by the wavekit that scaffolds.
var _ = Describe("the wavekit dependency", func() {
	checkout := func() (string, error) { return testcluster.ModuleRoot(), nil }
	noCheckout := func() (string, error) {
		return "", fmt.Errorf("%w: the binary records no source path (built with -trimpath?)", k8sbin.ErrNoCheckout)
	}
	// generate scaffolds with opts and returns the project's go.mod.
	generate := func(opts scaffold.Options) string {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "project")
		_, err := scaffold.Generate(dir, opts)
		Expect(err).NotTo(HaveOccurred())
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		Expect(err).NotTo(HaveOccurred())
		return string(gomod)
	}
	withSelf := func(v string, find func() (string, error)) scaffold.Options {
		opts := validOptions()
		opts.WavekitVersion = ""
		opts.Self = scaffold.Self{Version: v, Checkout: find}
		return opts
	}

	It("is the release itself for a released wavekit: a require, no replace", func() {
		opts := withSelf("v0.3.0", noCheckout)
		w, err := opts.Wavekit()
		Expect(err).NotTo(HaveOccurred())
		Expect(w).To(Equal(scaffold.Wavekit{Version: "v0.3.0"}))
		gomod := generate(opts)
		Expect(gomod).To(ContainSubstring("require github.com/wavekit-dev/wavekit v0.3.0\n"))
		Expect(gomod).NotTo(ContainSubstring("replace"))
	})

	It("is the checkout a development build was built from: a replace, and a note that says so", func() {
		opts := withSelf("v0.0.0-20261123172628-e6bea71abcde+dirty", checkout)
		w, err := opts.Wavekit()
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Replace).To(Equal(testcluster.ModuleRoot()))
		Expect(w.Note).To(Equal("note: this wavekit (v0.0.0-20261123172628-e6bea71abcde+dirty) is not a release, " +
			"so go.mod replaces github.com/wavekit-dev/wavekit with its checkout " + testcluster.ModuleRoot() + "; " +
			"to use a release later run: go mod edit -dropreplace=github.com/wavekit-dev/wavekit " +
			"-require=github.com/wavekit-dev/wavekit@vX.Y.Z && go mod tidy"))
		gomod := generate(opts)
		Expect(gomod).To(ContainSubstring("require github.com/wavekit-dev/wavekit v0.0.0\n"))
		Expect(gomod).To(HaveSuffix("\nreplace github.com/wavekit-dev/wavekit => " + testcluster.ModuleRoot() + "\n"))
	})

	It("fails for a development build that does not know its checkout, says which flag to pass, and lists the other problems too", func() {
		opts := withSelf("v0.0.0", noCheckout)
		opts.Kind = ""
		dir := filepath.Join(GinkgoT().TempDir(), "project")
		_, err := scaffold.Generate(dir, opts)
		Expect(err).To(MatchError("--kind is required: the custom resource kind, e.g. Redis\n" +
			"this wavekit (v0.0.0) is not a release, so the project would replace wavekit with the checkout it was built from, " +
			"but the wavekit checkout this binary was built from is not known: the binary records no source path (built with -trimpath?); " +
			"pass --wavekit-replace DIR (a wavekit checkout) or --wavekit-version vX.Y.Z (a released wavekit)"))
		Expect(err).To(MatchError(k8sbin.ErrNoCheckout))
		Expect(dir).NotTo(BeAnExistingFile())
	})

	It("is what --wavekit-version says, even for a development build", func() {
		opts := withSelf("v0.0.0", checkout)
		opts.WavekitVersion = "v0.2.0"
		gomod := generate(opts)
		Expect(gomod).To(ContainSubstring("require github.com/wavekit-dev/wavekit v0.2.0\n"))
		Expect(gomod).NotTo(ContainSubstring("replace"))
	})

	It("is what --wavekit-replace says, even for a release, quoted in go.mod where the path needs it", func() {
		// The dependency versions come from the replacing checkout's module files.
		root := filepath.Join(GinkgoT().TempDir(), "my wavekit")
		for _, rel := range []string{"go.mod", "go.sum", "hack/tools/go.mod", "hack/tools/go.sum"} {
			data, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), rel))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(root, rel), data, 0o644)).To(Succeed())
		}
		opts := withSelf("v0.3.0", noCheckout)
		opts.WavekitReplace = root
		w, err := opts.Wavekit()
		Expect(err).NotTo(HaveOccurred())
		Expect(w).To(Equal(scaffold.Wavekit{Version: "v0.3.0", Replace: root}))
		gomod := generate(opts)
		Expect(gomod).To(ContainSubstring("require github.com/wavekit-dev/wavekit v0.3.0\n"))
		Expect(gomod).To(HaveSuffix("\nreplace github.com/wavekit-dev/wavekit => %q\n", root))
	})

	It("refuses v0.0.0 without a replace: no such wavekit can be downloaded", func() {
		opts := withSelf("v0.3.0", noCheckout)
		opts.WavekitVersion = "v0.0.0"
		Expect(opts.Validate()).To(MatchError(ContainSubstring("--wavekit-version v0.0.0 names no wavekit that can be downloaded")))
	})
})
