package releases_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("diff", func() {
	It("shows what apply would create, then nothing, then an out-of-band edit", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("diff", "demo", "../testdata/web", "-n", ns)
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("+ create ConfigMap " + ns + "/demo-config\n"))
		Expect(r.Stdout).To(ContainSubstring("+  greeting: hello\n"))
		Expect(r.Stdout).To(HaveSuffix("Summary: 2 to create, 0 to update, 0 to delete, 0 unchanged\n"))
		Expect(clitest.ConfigMap(ns, "demo-config")).To(BeNil(), "a dry run creates nothing")
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		Expect(clitest.Succeeds("diff", "demo", "../testdata/web", "-n", ns)).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 2 unchanged\n"))

		cm := clitest.ConfigMap(ns, "demo-config")
		cm.Data["greeting"] = "edited"
		Expect(clitest.Env.Client.Update(context.Background(), cm)).To(Succeed())
		r = clitest.Wavekit("diff", "demo", "../testdata/web", "-n", ns)
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("~ update ConfigMap " + ns + "/demo-config (data.greeting: edited → hello)\n--- live\n+++ rendered\n"))
		Expect(r.Stdout).To(ContainSubstring("-  greeting: edited\n+  greeting: hello\n"))
		Expect(r.Stdout).NotTo(ContainSubstring("demo-app"))
		Expect(r.Stdout).To(HaveSuffix("Summary: 0 to create, 1 to update, 0 to delete, 1 unchanged\n"))
		Expect(clitest.ConfigMap(ns, "demo-config").Data).To(HaveKeyWithValue("greeting", "edited"))
	})

	It("reads live objects with one list per kind and dry-runs only what changed", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "many", "../testdata/many", "-n", ns, "--set", "changed=-1")
		config, counter := clitest.CountingKubeconfig()

		r := clitest.WavekitWith(config, "diff", "many", "../testdata/many", "-n", ns, "--set", "changed=-1")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(Equal("Summary: 0 to create, 0 to update, 0 to delete, 20 unchanged\n"))
		Expect(counter.Count("list", "configmaps")).To(Equal(1), counter.String())
		Expect(counter.Count("get", "configmaps")).To(BeZero(), counter.String())
		Expect(counter.Writes()).To(BeZero(), counter.String())

		counter.Reset()
		r = clitest.WavekitWith(config, "diff", "many", "../testdata/many", "-n", ns, "--set", "changed=3")
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(HaveSuffix("Summary: 0 to create, 1 to update, 0 to delete, 19 unchanged\n"))
		Expect(counter.Count("apply", "configmaps")).To(Equal(1), "one dry run, for the changed object: %s", counter)
		Expect(counter.Writes()).To(Equal(1), counter.String())
		Expect(clitest.ConfigMap(ns, "many-3").Data).To(HaveKeyWithValue("value", "same"), "a dry run changes nothing")
	})

	DescribeTable("refuses what apply refuses, with apply's message",
		func(dir, message string) {
			ns := clitest.NewNamespace()
			applied := clitest.Wavekit("apply", "bad", dir, "-n", ns)
			Expect(applied.Code).To(Equal(1))
			diffed := clitest.Wavekit("diff", "bad", dir, "-n", ns)
			Expect(diffed.Code).To(Equal(2))
			Expect(diffed.Stderr).To(ContainSubstring(strings.ReplaceAll(message, "NS/", ns+"/")))
			Expect(applied.Stderr).To(ContainSubstring(strings.ReplaceAll(message, "NS/", ns+"/")))
			clitest.NothingIn(ns)
		},
		Entry("a duplicate object", "../testdata/invalid/duplicate", "ConfigMap NS/twice"),
		Entry("generateName", "../testdata/invalid/generate-name", "generateName"),
		Entry("a purge order before the apply order", "../testdata/invalid/purge-order", "ConfigMap NS/early: purge order 1 is before its apply order 2"),
	)

	It("lists the objects that left the manifests as deletions", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns, "-f", "../testdata/values.yaml")
		r := clitest.Wavekit("diff", "demo", "../testdata/web", "-n", ns)
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(HavePrefix("wave 0, configuration:\n~ update ConfigMap " + ns + "/demo-config (data.greeting: from-file → hello)\n"))
		Expect(r.Stdout).To(ContainSubstring("\nwave 0, ready: wait for 1 object to be ready\n" +
			"prune, delete-order 0, configuration:\n- prune ConfigMap " + ns + "/demo-extra (no longer rendered)\n"))
		Expect(r.Stdout).To(ContainSubstring("-  extra: \"true\"\n"))
		Expect(r.Stdout).To(HaveSuffix("Summary: 0 to create, 1 to update, 1 to delete, 1 unchanged\n"))
	})

	It("prints the plan as JSON that its schema accepts, every step in the order apply takes it", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns, "-f", "../testdata/values.yaml")
		r := clitest.Wavekit("diff", "demo", "../testdata/web", "-n", ns, "-o", "json")
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(validateDiffSchema(r.Stdout)).To(Succeed())
		Expect(validateDiffSchema(strings.Replace(r.Stdout, `"action": "update"`, `"action": "rewrite"`, 1))).NotTo(Succeed(), "the schema checks actions")
		var report struct {
			Release string
			Changes bool
			Summary map[string]int
			Steps   []struct {
				Group, Stage, Action, Reason, Diff string
				Wave                               int
				Object                             struct{ Kind, Namespace, Name string }
			}
		}
		Expect(json.Unmarshal([]byte(r.Stdout), &report)).To(Succeed())
		Expect(report.Release).To(Equal(ns + "/demo"))
		Expect(report.Changes).To(BeTrue())
		Expect(report.Summary).To(Equal(map[string]int{"create": 0, "update": 1, "delete": 1, "orphan": 0, "purge": 0, "unchanged": 1}))
		var steps []string
		for _, s := range report.Steps {
			steps = append(steps, fmt.Sprintf("%s %d %s: %s %s/%s (%s)", s.Group, s.Wave, s.Stage, s.Action, s.Object.Kind, s.Object.Name, s.Reason))
		}
		Expect(steps).To(Equal([]string{
			"apply 0 configuration: update ConfigMap/demo-config (data.greeting: from-file → hello)",
			"wait 0 : ready ConfigMap/demo-config ()",
			"apply 1 configuration: unchanged ConfigMap/demo-app (as last applied)",
			"wait 1 : ready ConfigMap/demo-app ()",
			"prune 0 configuration: prune ConfigMap/demo-extra (no longer rendered)",
		}))
		Expect(report.Steps[0].Diff).To(ContainSubstring("-  greeting: from-file\n+  greeting: hello\n"))

		r = clitest.Wavekit("diff", "demo", "../testdata/web", "-n", ns, "-o", "yaml", "-f", "../testdata/values.yaml")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("changes: false\n"))
	})

	It("exits with 2 on an error", func() {
		r := clitest.Wavekit("diff", "demo", "../testdata/missing")
		Expect(r.Code).To(Equal(2))
		Expect(r.Stderr).To(Equal("error: source ../testdata/missing: no such directory\n"))
	})
})

var _ = Describe("diff of a Secret", func() {
	const oldPassword, newPassword, token = "old-pa55word", "new-pa55word", "t0ken-value"
	ctx := context.Background()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	values := []string{oldPassword, newPassword, token}
	expectNoValues := func(out string) {
		GinkgoHelper()
		for _, v := range values {
			Expect(out).NotTo(ContainSubstring(v))
			Expect(out).NotTo(ContainSubstring(b64(v)))
		}
	}

	It("shows which keys are added, changed and removed but never a value", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("diff", "vault", "../testdata/secret", "-n", ns, "--set", "password="+oldPassword)
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("+ create Secret " + ns + "/vault-credentials\n"))
		Expect(r.Stdout).To(ContainSubstring("+  password: '***'\n"))
		expectNoValues(r.Stdout + r.Stderr)
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password="+oldPassword)
		secret := &corev1.Secret{}
		Expect(clitest.Env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "vault-credentials"}, secret)).To(Succeed())
		secret.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"stringData":{"password":"` + oldPassword + `"}}`}
		Expect(clitest.Env.Client.Update(ctx, secret)).To(Succeed())

		r = clitest.Wavekit("diff", "vault", "../testdata/secret", "-n", ns, "--set", "password="+newPassword, "--set", "token="+token)
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("~ update Secret " + ns + "/vault-credentials (data.password: *** (before) → *** (after), data.token: (none) → ***, "))
		Expect(r.Stdout).To(ContainSubstring("-  password: '*** (before)'\n+  password: '*** (after)'\n"))
		Expect(r.Stdout).To(ContainSubstring("+  token: '***'\n"))
		// Another writer's annotation stays (server-side apply), masked too.
		Expect(r.Stdout).To(ContainSubstring("\n     kubectl.kubernetes.io/last-applied-configuration: '***'\n"))
		expectNoValues(r.Stdout + r.Stderr)
	})

	It("prints the values with --show-secrets", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password="+oldPassword)
		r := clitest.Wavekit("diff", "vault", "../testdata/secret", "-n", ns, "--set", "password="+newPassword, "--show-secrets")
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("-  password: " + b64(oldPassword) + "\n+  password: " + b64(newPassword) + "\n"))
	})
})

// validateDiffSchema checks a diff -o json document against the schema the
// docs publish.
func validateDiffSchema(document string) error {
	compiler := jsonschema.NewCompiler()
	schema, err := compiler.Compile("../../../docs/schemas/diff.schema.json")
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(document))
	if err != nil {
		return err
	}
	return schema.Validate(doc)
}
