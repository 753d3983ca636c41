package layout_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the module's layout", func() {
	var (
		packages []*goPackage
		module   string
	)
	BeforeEach(func() {
		var err error
		packages, err = readPackages(moduleRoot())
		Expect(err).NotTo(HaveOccurred())
		module, err = modulePath(moduleRoot())
		Expect(err).NotTo(HaveOccurred())
		Expect(len(packages)).To(BeNumerically(">", 50), "the walk found the module's packages")
	})

	It("keeps every package of pkg/ within 30 non-test Go files", func() {
		Expect(tooManyFiles(packages)).To(BeEmpty())
	})

	It("keeps the test helpers of internal/testing out of product code", func() {
		Expect(testHelperImports(packages, module)).To(BeEmpty())
	})

	It("keeps pkg/ free of imports of internal/", func() {
		Expect(internalImports(packages, module)).To(BeEmpty())
	})

	It("gives every package a doc.go", func() {
		Expect(withoutDoc(packages)).To(BeEmpty())
	})

	It("names each break of a rule, in a module made to break them", func() {
		root := GinkgoT().TempDir()
		write := func(path, content string) {
			GinkgoHelper()
			Expect(os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(root, path), []byte(content), 0o644)).To(Succeed())
		}
		write("go.mod", "module example.com/m\n\ngo 1.26\n")
		for i := range maxFiles + 1 {
			write(fmt.Sprintf("pkg/big/f%02d.go", i), "package big\n")
		}
		write("pkg/big/doc.go", "// Package big is too big.\npackage big\n")
		write("pkg/engine/doc.go", "// Package engine fits.\npackage engine\n")
		write("pkg/engine/uses.go", "package engine\n\nimport _ \"example.com/m/internal/thing\"\n")
		write("pkg/engine/uses_test.go", "package engine\n\nimport _ \"example.com/m/internal/thing\"\n")
		write("internal/thing/doc.go", "// Package thing is product code.\npackage thing\n")
		write("internal/thing/thing.go", "package thing\n\nimport _ \"example.com/m/internal/testing/fake\"\n")
		write("internal/thing/thing_test.go", "package thing\n\nimport _ \"example.com/m/internal/testing/other\"\n")
		write("internal/testing/fake/doc.go", "// Package fake is a test helper.\npackage fake\n\nimport _ \"example.com/m/internal/testing/other\"\n")
		write("internal/nodoc/nodoc.go", "// Package nodoc says it here, not in doc.go.\npackage nodoc\n")
		write("test/suite/suite_test.go", "package suite_test\n")
		write("testdata/x/x.go", "package x\n")
		write("nested/go.mod", "module example.com/nested\n")
		write("nested/n.go", "package n\n")

		found, err := readPackages(root)
		Expect(err).NotTo(HaveOccurred())
		oversized["pkg/engine"] = "a split under way"
		DeferCleanup(func() { delete(oversized, "pkg/engine") })
		Expect(tooManyFiles(found)).To(ConsistOf(
			"pkg/big has 27 non-test Go files, more than 25: split it into packages of one job each",
			"pkg/engine has 2 non-test Go files now: remove its allowance (a split under way)",
		))
		Expect(testHelperImports(found, "example.com/m")).To(ConsistOf(
			"internal/thing/thing.go imports the test helper example.com/m/internal/testing/fake: only _test.go files may"))
		Expect(internalImports(found, "example.com/m")).To(ConsistOf(
			"pkg/engine/uses.go imports example.com/m/internal/thing: pkg/ may import no internal/ package"))
		Expect(withoutDoc(found)).To(ConsistOf("internal/nodoc has no doc.go: say there what the package owns"))
		Expect(strings.Join(withoutDoc(found), "")).NotTo(ContainSubstring("test/suite"), "a suite of _test.go files alone is no package")
	})
})
