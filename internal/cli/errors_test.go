package cli_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("an error", func() {
	DescribeTable("prints one problem per line with what to do, and the exit code of the command",
		func(args []string, code int, stderr string) {
			r := clitest.Wavekit(args...)
			Expect(r.Stderr).To(Equal(stderr))
			Expect(r.Code).To(Equal(code))
			Expect(r.Stdout).To(BeEmpty())
		},
		Entry("an unknown command", []string{"rendr", "testdata/web"}, 2,
			"error: unknown command \"rendr\" for \"wavekit\"\n"+
				"  did you mean: render?\n"+
				"  run 'wavekit --help' for the commands\n"),
		Entry("an unknown command nothing comes close to", []string{"frobnicate"}, 2,
			"error: unknown command \"frobnicate\" for \"wavekit\"\n"+
				"  run 'wavekit --help' for the commands\n"),
		Entry("an unknown command of a group", []string{"cluster", "nosuch"}, 2,
			"error: unknown command \"nosuch\" for \"wavekit cluster\"\n"+
				"  run 'wavekit cluster --help' for the commands\n"),
		Entry("a mistyped command of a group", []string{"cluster", "creat", "--name", "x"}, 2,
			"error: unknown command \"creat\" for \"wavekit cluster\"\n"+
				"  did you mean: create?\n"+
				"  run 'wavekit cluster --help' for the commands\n"),
		Entry("an unknown help topic", []string{"help", "plugin", "instal"}, 2,
			"error: unknown command \"instal\" for \"wavekit plugin\"\n"+
				"  did you mean: install?\n"+
				"  run 'wavekit plugin --help' for the commands\n"),
		Entry("an argument to a command that takes none", []string{"list", "extra"}, 2,
			"error: unknown command \"extra\" for \"wavekit list\"\n"+
				"  run 'wavekit list --help' for its usage\n"),
		Entry("an unknown flag", []string{"render", "testdata/web", "--nosuch", "x.yaml"}, 2,
			"error: unknown flag: --nosuch\n"+
				"  run 'wavekit render --help' for its flags\n"),
		Entry("a mistyped flag", []string{"render", "testdata/web", "--valuse", "x.yaml"}, 2,
			"error: unknown flag: --valuse\n"+
				"  did you mean: --values?\n"+
				"  run 'wavekit render --help' for its flags\n"),
		Entry("a mistyped flag of a subcommand", []string{"cluster", "delete", "--kep"}, 2,
			"error: unknown flag: --kep\n"+
				"  did you mean: --keep?\n"+
				"  run 'wavekit cluster delete --help' for its flags\n"),
		Entry("an unknown shorthand flag", []string{"status", "demo", "-z"}, 2,
			"error: unknown shorthand flag: 'z' in -z\n"+
				"  run 'wavekit status --help' for its flags\n"),
		Entry("a bad flag value", []string{"apply", "demo", "testdata/web", "--timeout", "soon"}, 2,
			"error: invalid argument \"soon\" for \"--timeout\" flag: time: invalid duration \"soon\"\n"+
				"  run 'wavekit apply --help' for its flags\n"),
		Entry("an unknown flag of diff, whose errors exit with 2", []string{"diff", "demo", "testdata/web", "--bogus"}, 2,
			"error: unknown flag: --bogus\n"+
				"  run 'wavekit diff --help' for its flags\n"),
		Entry("a wrong number of arguments", []string{"render"}, 2,
			"error: render needs SOURCE, got 0 arguments (see wavekit render --help)\n"),
		Entry("a missing argument", []string{"apply", "demo"}, 2,
			"error: apply needs NAME SOURCE, got 1 arguments (see wavekit apply --help)\n"),
		Entry("an argument to version", []string{"version", "extra"}, 2,
			"error: version takes no arguments, got 1 (see wavekit version --help)\n"),
		Entry("a Helm chart with Chart.yml", []string{"render", "testdata/chart-yml"}, 1,
			"error: source testdata/chart-yml: found Chart.yml: Helm charts need Chart.yaml; rename it\n"),
	)

	It("refuses an unknown word under every command that groups others, and an unknown flag of every command, with exit code 2", func() {
		var commands []*cobra.Command
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			commands = append(commands, c)
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(cli.NewRootCommand(io.Discard, io.Discard))
		groups := 0
		for _, c := range commands {
			path := strings.Fields(c.CommandPath())[1:]
			r := clitest.WavekitAlone(append(path, "--no-such-flag")...)
			Expect(r.Code).To(Equal(2), "%s --no-such-flag", c.CommandPath())
			Expect(r.Stderr).To(HavePrefix("error: unknown flag: --no-such-flag\n"), c.CommandPath())
			if !c.HasSubCommands() || c.Runnable() && c.Annotations["wavekit.dev/group"] == "" {
				continue
			}
			groups++
			r = clitest.WavekitAlone(append(path, "no-such-command")...)
			Expect(r.Code).To(Equal(2), "%s no-such-command", c.CommandPath())
			Expect(r.Stderr).To(Equal(fmt.Sprintf("error: unknown command \"no-such-command\" for %q\n  run '%s --help' for the commands\n",
				c.CommandPath(), c.CommandPath())))
			Expect(r.Stdout).To(BeEmpty(), "no help printed")
			r = clitest.WavekitAlone(path...)
			Expect(r.Code).To(Equal(0), "%s alone prints its help", c.CommandPath())
			Expect(r.Stdout).To(ContainSubstring("Usage:\n  " + c.CommandPath() + " [command]\n\n"))
		}
		Expect(groups).To(BeNumerically(">=", 5), "wavekit, cluster, plugin, alert, completion")
	})

	It("prints each of several problems on a line of its own", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("apply", "demo", "testdata/three-invalid", "-n", ns)
		Expect(r.Code).To(Equal(1))
		invalid := `annotation wavekit.dev/apply-order has invalid value "soon" (allowed: an integer from -32768 to 32767)`
		Expect(r.Stderr).To(Equal("error: invalid manifests: ConfigMap " + ns + "/demo-a: " + invalid + "\n" +
			"  ConfigMap " + ns + "/demo-b: " + invalid + "\n" +
			"  ConfigMap " + ns + "/demo-c: " + invalid + "\n"))
		clitest.NothingIn(ns)
	})

	It("names --kustomize-root for a kustomization whose base is outside the source", func() {
		base, err := filepath.Abs("testdata/outside/base")
		Expect(err).NotTo(HaveOccurred())
		r := clitest.Wavekit("render", "testdata/outside/overlay")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: rendering testdata/outside/overlay: kustomize build .: testdata/outside/base is outside the source testdata/outside/overlay: " +
			"accumulating resources: accumulation err='accumulating resources from '../base': '" + base + "' doesn't exist': " +
			"must build at directory: not a valid directory: '" + base + "' doesn't exist\n" +
			"  pass --kustomize-root testdata/outside (a directory that contains both)\n"))

		Expect(clitest.Succeeds("render", "testdata/outside/overlay", "--kustomize-root", "testdata/outside")).To(ContainSubstring("name: overlay-base"))
	})

	It("says how to configure a cluster when there is no kubeconfig", func() {
		missing := filepath.Join(GinkgoT().TempDir(), "missing")
		GinkgoT().Setenv("KUBECONFIG", missing)
		GinkgoT().Setenv("HOME", GinkgoT().TempDir())
		GinkgoT().Setenv("KUBERNETES_SERVICE_HOST", "") // not in a pod
		r := clitest.WavekitAlone("status", "demo")
		Expect(r.Stderr).To(Equal("error: no kubeconfig found: KUBECONFIG names " + missing + ", which does not exist\n" +
			"  set --kubeconfig or KUBECONFIG to a kubeconfig file, or start a local cluster with 'wavekit cluster create', which writes one\n"))
		Expect(r.Code).To(Equal(1))
	})

	It("names a --kubeconfig that does not exist", func() {
		missing := filepath.Join(GinkgoT().TempDir(), "missing")
		r := clitest.WavekitWith(missing, "status", "demo")
		Expect(r.Stderr).To(Equal("error: --kubeconfig " + missing + ": no such file\n"))
		Expect(r.Code).To(Equal(1))
	})

	It("names the contexts when the kubeconfig has no current one", func() {
		config := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(os.WriteFile(config, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n"+
			"contexts:\n- name: prod\n  context: {cluster: c}\n- name: dev\n  context: {cluster: c}\n"), 0o600)).To(Succeed())
		r := clitest.WavekitWith(config, "status", "demo")
		Expect(r.Stderr).To(Equal("error: kubeconfig " + config + ": no current context\n" +
			"  pass --context with one of: dev, prod\n"))
		Expect(r.Code).To(Equal(1))
	})
})
