package fleet_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// cliResult is what a run of the CLI printed and its exit code.
type cliResult struct {
	code           int
	stdout, stderr string
}

// diffSet runs wavekit diff componentset as a user of the hub would, with
// the operator's source.
func diffSet(args ...string) cliResult {
	GinkgoHelper()
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(hub.Config, kubeconfig)).To(Succeed())
	args = append([]string{"--kubeconfig", kubeconfig, "diff", "componentset", "--cache-dir", GinkgoT().TempDir(),
		"--source", "site=" + testdata("site"), "--source", "tenant=" + testdata("tenant")}, args...)
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, args, &stdout, &stderr)
	GinkgoWriter.Printf("wavekit %v -> %d\n%s%s", args, code, stdout.String(), stderr.String())
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// writeSet writes set as a manifest a user would keep, and returns its path.
func writeSet(set *v1alpha1.ComponentSet) string {
	GinkgoHelper()
	manifest := &v1alpha1.ComponentSet{Spec: set.Spec}
	manifest.APIVersion, manifest.Kind = v1alpha1.GroupVersion.String(), "ComponentSet"
	manifest.Namespace, manifest.Name = set.Namespace, set.Name
	data, err := yaml.Marshal(manifest)
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(GinkgoT().TempDir(), "set.yaml")
	Expect(os.WriteFile(path, data, 0o600)).To(Succeed())
	return path
}

// clusterSections splits the text output of diff componentset by cluster:
// each cluster's header and what follows it, by the cluster's name.
func clusterSections(stdout string) map[string]string {
	sections := map[string]string{}
	for _, part := range strings.Split(stdout, "\ncluster ") {
		part = strings.TrimPrefix(part, "cluster ")
		name, _, _ := strings.Cut(part, " ")
		sections[name] = "cluster " + part
	}
	return sections
}

// runCLI runs wavekit as a user of the hub would.
func runCLI(args ...string) cliResult {
	GinkgoHelper()
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(testcluster.WriteKubeconfig(hub.Config, kubeconfig)).To(Succeed())
	args = append([]string{"--kubeconfig", kubeconfig}, args...)
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, args, &stdout, &stderr)
	GinkgoWriter.Printf("wavekit %v -> %d\n%s%s", args, code, stdout.String(), stderr.String())
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}
