package releases_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

// configMapDeleted deletes a ConfigMap behind wavekit's back.
func configMapDeleted(namespace, name string) error {
	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name = namespace, name
	return clitest.Env.Client.Delete(context.Background(), cm)
}

var _ = Describe("bad input", func() {
	DescribeTable("gets one clear line, a non-zero exit and changes nothing",
		func(useKubeconfig bool, args []string, line string) {
			ns := clitest.NewNamespace()
			config := clitest.Kubeconfig
			if !useKubeconfig {
				config = clitest.Unreachable
			}
			r := clitest.WavekitWith(config, append(args, "-n", ns)...)
			Expect(r.Code).To(Equal(1))
			Expect(r.Stderr).To(Equal("error: " + strings.ReplaceAll(line, "NS/", ns+"/") + "\n"))
			clitest.NothingIn(ns)
		},
		Entry("a missing source", true, []string{"apply", "demo", "../testdata/missing"},
			"source ../testdata/missing: no such directory"),
		Entry("a values file that is not YAML", true, []string{"apply", "demo", "../testdata/web", "-f", "../testdata/not-yaml.yaml"},
			"values file ../testdata/not-yaml.yaml: not valid YAML: yaml: line 1: did not find expected ',' or ']'"),
		Entry("a values file that is a list", true, []string{"apply", "demo", "../testdata/web", "-f", "../testdata/gadgets/../list.yaml"},
			"values file ../testdata/gadgets/../list.yaml: expected a map of values, found a list"),
		Entry("a --set without a value", true, []string{"apply", "demo", "../testdata/web", "--set", "greeting"},
			`--set greeting: key "greeting" has no value`),
		Entry("a chart that fails to render", true, []string{"apply", "demo", "../testdata/failing-chart"},
			"rendering ../testdata/failing-chart: helm chart failing: execution error at (failing/templates/configmap.yaml:6:14): message is required"),
		Entry("a values key that values.schema.json of a template folder does not allow", true,
			[]string{"apply", "demo", "../../../examples/templates/web", "--set", "image=nginx,replicaz=3"},
			"rendering ../../../examples/templates/web: values don't meet the specifications of the schema in values.schema.json:\n"+
				"  - at '': additional properties 'replicaz' not allowed"),
		Entry("a release name that YAML reads as a boolean where a template prints it unquoted", true,
			[]string{"apply", "no", "../testdata/release-named"},
			"rendering ../testdata/release-named: configmap.yaml: document 1: v1 ConfigMap: metadata.name is the boolean false: "+
				"YAML reads an unquoted y, n, yes, no, on, off, true or false as a boolean, not a string; quote it where the template prints it ({{ ... | quote }})"),
		Entry("an invalid annotation", true, []string{"apply", "demo", "../testdata/bad-annotation"},
			`invalid manifests: ConfigMap NS/demo: annotation wavekit.dev/apply-order has invalid value "soon" (allowed: an integer from -32768 to 32767)`),
		Entry("no cluster reachable", false, []string{"apply", "demo", "../testdata/web"},
			"cannot reach the cluster at https://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused"),
	)
})
