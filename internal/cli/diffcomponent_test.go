package cli_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("diff component", func() {
	writeFile := func(content string) string {
		path := filepath.Join(GinkgoT().TempDir(), "component.yaml")
		Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
		return path
	}

	It("previews a Component that is not in the cluster yet: everything is created, nothing is written", func() {
		ns := newNamespace()
		file := writeFile("apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n  source: web\n  values:\n    greeting: hi\n")
		r := wavekit("diff", "component", "-f", file, "-n", ns, "--source", "web=testdata/web", "--cache-dir", GinkgoT().TempDir())
		Expect(r.code).To(Equal(1), r.stderr)
		Expect(r.stdout).To(HavePrefix("wave 0, configuration:\n+ create ConfigMap " + ns + "/shop-config\n"))
		Expect(r.stdout).To(ContainSubstring("+  greeting: hi\n"))
		Expect(r.stdout).To(ContainSubstring("+    wavekit.dev/owner: Component " + ns + "/shop\n"))
		Expect(r.stdout).To(HaveSuffix("Summary: 2 to create, 0 to update, 0 to delete, 0 unchanged\n"))
		Expect(configMap(ns, "shop-config")).To(BeNil(), "a preview creates nothing")
	})

	DescribeTable("refuses bad input with exit code 2 and says why",
		func(args []string, file, message string) {
			ns := newNamespace()
			if file != "" {
				path := writeFile(file)
				args = append(args, "-f", path)
				message = strings.ReplaceAll(message, "FILE:", path+":")
			}
			message = strings.ReplaceAll(message, "NS/", ns+"/")
			r := wavekit(append(append([]string{"diff", "component", "-n", ns}, args...), "--cache-dir", GinkgoT().TempDir())...)
			Expect(r.code).To(Equal(2), r.stdout)
			Expect(r.stderr).To(Equal("error: " + message + "\n"))
		},
		Entry("no Component named", nil, "", "diff component needs NAMESPACE/NAME or -f FILE (see wavekit diff component --help)"),
		Entry("both a name and a file", []string{"x/y"}, "kind: Component", "diff component takes NAMESPACE/NAME or -f FILE, not both"),
		Entry("a Component that does not exist", []string{"nowhere/missing"}, "", "Component nowhere/missing not found"),
		Entry("a file of another kind", nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "FILE: holds v1 ConfigMap, not a Component of wavekit.dev/v1alpha1"),
		Entry("a source the operator does not serve", []string{"--source", "web=testdata/web"},
			"apiVersion: wavekit.dev/v1alpha1\nkind: Component\nmetadata:\n  name: shop\nspec:\n  source: api\n",
			"Component NS/shop: rendering: source \"api\" is not served (served: web)"),
	)
})
