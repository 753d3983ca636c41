package cli_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

// thisBinary is the test binary, links resolved: what plugin install links to.
func thisBinary() string {
	GinkgoHelper()
	self, err := os.Executable()
	Expect(err).NotTo(HaveOccurred())
	self, err = filepath.EvalSymlinks(self)
	Expect(err).NotTo(HaveOccurred())
	return self
}

var _ = Describe("plugin install and uninstall", func() {
	It("say where they write: next to the kubectl on PATH by default, and remove only their own link", func() {
		bin := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(bin, "kubectl"), []byte("#!/bin/sh\n"), 0o755)).To(Succeed())
		GinkgoT().Setenv("PATH", bin)
		link := filepath.Join(bin, "kubectl-wavekit")

		Expect(clitest.Succeeds("plugin", "install")).To(Equal(
			"writing kubectl-wavekit into " + bin + ", the directory of " + filepath.Join(bin, "kubectl") + " (--dir chooses another)\n" +
				"installed " + link + " -> " + thisBinary() + "; run: kubectl wavekit --help\n"))
		Expect(filepath.EvalSymlinks(link)).To(Equal(thisBinary()))

		Expect(clitest.Succeeds("plugin", "uninstall")).To(Equal("removed " + link + "\n"))
		Expect(link).NotTo(BeAnExistingFile())
		Expect(filepath.Join(bin, "kubectl")).To(BeAnExistingFile())
	})

	It("installs into --dir, says when kubectl will not find it there, and uninstalls from it", func() {
		dir := GinkgoT().TempDir()
		out := clitest.Succeeds("plugin", "install", "--dir", dir)
		Expect(out).To(HavePrefix("writing kubectl-wavekit into " + dir + "\n"))
		Expect(out).To(HaveSuffix(dir + " is not on PATH: kubectl finds plugins only there; add it, or install with --dir DIR on PATH\n"))
		Expect(clitest.Succeeds("plugin", "uninstall", "--dir", dir)).To(Equal("removed " + filepath.Join(dir, "kubectl-wavekit") + "\n"))
		Expect(os.ReadDir(dir)).To(BeEmpty())
	})

	It("uninstalls a copy of this binary, as install makes where links cannot be made", func() {
		dir := GinkgoT().TempDir()
		data, err := os.ReadFile(thisBinary())
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "kubectl-wavekit"), data, 0o755)).To(Succeed())
		Expect(clitest.Succeeds("plugin", "uninstall", "--dir", dir)).To(Equal("removed " + filepath.Join(dir, "kubectl-wavekit") + "\n"))
	})

	It("refuses bad input with one clear line and changes nothing", func() {
		missing := filepath.Join(GinkgoT().TempDir(), "missing")
		for _, verb := range []string{"install", "uninstall"} {
			r := clitest.Wavekit("plugin", verb, "--dir", missing)
			Expect(r.Code).To(Equal(1))
			Expect(r.Stderr).To(Equal("error: --dir " + missing + ": no such directory\n"))
			Expect(missing).NotTo(BeAnExistingFile())
		}

		empty := GinkgoT().TempDir()
		r := clitest.Wavekit("plugin", "uninstall", "--dir", empty)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: no kubectl-wavekit in " + empty + ": nothing to remove\n"))

		other := GinkgoT().TempDir()
		foreign := filepath.Join(other, "kubectl-wavekit")
		Expect(os.WriteFile(foreign, []byte("#!/bin/sh\n"), 0o755)).To(Succeed())
		r = clitest.Wavekit("plugin", "uninstall", "--dir", other)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: " + foreign + " is neither a link to " + thisBinary() + " nor a copy of it: left alone\n"))
		Expect(os.ReadFile(foreign)).To(Equal([]byte("#!/bin/sh\n")))

		GinkgoT().Setenv("PATH", GinkgoT().TempDir())
		r = clitest.Wavekit("plugin", "uninstall")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: kubectl is not on PATH: give the directory with --dir (one on PATH, for kubectl to find the plugin)\n"))
	})
})
