package releases_test

import (
	"context"
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("history, rollback and apply --atomic", func() {
	deploymentImage := func(ns, name string) string {
		var d appsv1.Deployment
		Expect(clitest.Env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &d)).To(Succeed())
		return d.Spec.Template.Spec.Containers[0].Image
	}
	history := func(ns, name string) []string {
		GinkgoHelper()
		var entries []struct {
			Revision     int64
			State        string
			RolledBackTo int64
			Stored       bool
		}
		Expect(json.Unmarshal([]byte(clitest.Succeeds("history", name, "-n", ns, "-o", "json")), &entries)).To(Succeed())
		var out []string
		for _, e := range entries {
			line := fmt.Sprintf("%d %s", e.Revision, e.State)
			if e.RolledBackTo > 0 {
				line += fmt.Sprintf(" rollback to %d", e.RolledBackTo)
			}
			out = append(out, line)
		}
		return out
	}

	It("rolls a failed upgrade back to the last Ready revision with --atomic, keeping the UIDs of what both have", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "shop", "../testdata/atomic", "-n", ns, "--wait", "--timeout", "2m")
		uid := clitest.ConfigMap(ns, "shop-config").UID

		r := clitest.Wavekit("apply", "shop", "../testdata/atomic", "-n", ns, "--set", "version=2", "--set", "broken=true", "--atomic", "--timeout", "2m")
		Expect(r.Code).To(Equal(1), r.Stdout)
		Expect(r.Stderr).To(HavePrefix("error: batch/Job " + ns + "/shop-migrate failed: Failed: BackoffLimitExceeded"))
		Expect(r.Stderr).To(HaveSuffix("; --atomic: rolled back to revision 1 (revision 2 failed)\n"))

		Expect(deploymentImage(ns, "shop")).To(Equal("registry.example/app:1"))
		Expect(clitest.ConfigMap(ns, "shop-config").Data).To(HaveKeyWithValue("version", "1"))
		Expect(clitest.ConfigMap(ns, "shop-config").UID).To(Equal(uid), "updated in place, not re-created")
		err := clitest.Env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "shop-migrate"}, &batchv1.Job{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Job the failed revision added is pruned: %v", err)
		Expect(history(ns, "shop")).To(Equal([]string{"1 Ready", "2 Failed", "3 Ready rollback to 1"}))

		By("a version that works then installs normally, and rollback returns to the revision before it")
		clitest.Succeeds("apply", "shop", "../testdata/atomic", "-n", ns, "--set", "version=3", "--wait", "--timeout", "2m")
		Expect(deploymentImage(ns, "shop")).To(Equal("registry.example/app:3"))
		clitest.Succeeds("rollback", "shop", "-n", ns, "--wait", "--timeout", "2m")
		Expect(deploymentImage(ns, "shop")).To(Equal("registry.example/app:1"))
		Expect(clitest.ConfigMap(ns, "shop-config").UID).To(Equal(uid))
		Expect(history(ns, "shop")).To(Equal([]string{"1 Ready", "2 Failed", "3 Ready rollback to 1", "4 Ready", "5 Ready rollback to 3"}))
		Expect(clitest.Succeeds("history", "shop", "-n", ns)).To(MatchRegexp(`(?m)^5 +\S+ +Ready +[0-9a-f]{12} +rollback to 3$`))
	})

	It("deletes a release whose install fails with --atomic, and refuses a rollback it cannot make", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("apply", "shop", "../testdata/atomic", "-n", ns, "--set", "broken=true", "--atomic", "--timeout", "2m")
		Expect(r.Code).To(Equal(1), r.Stdout)
		Expect(r.Stderr).To(HaveSuffix("; --atomic: the install failed, so the release is deleted\n"))
		Expect(clitest.ConfigMap(ns, "shop-config")).To(BeNil())
		Expect(clitest.Wavekit("status", "shop", "-n", ns).Stderr).To(ContainSubstring("release " + ns + "/shop not found"))
		clitest.Succeeds("apply", "shop", "../testdata/atomic", "-n", ns, "--wait", "--timeout", "2m")
		r = clitest.Wavekit("rollback", "shop", "-n", ns)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: release " + ns + "/shop: no Ready revision before revision 1 to roll back to\n"))
		r = clitest.Wavekit("rollback", "shop", "7", "-n", ns)
		Expect(r.Stderr).To(Equal("error: release " + ns + "/shop: revision 7 is not in the release's history (it keeps the last 10); it has revisions 1 (Ready)\n"))
	})
})
