package releases_test

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var _ = Describe("status and list", func() {
	var ns string

	BeforeEach(func() {
		ns = clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		clitest.Succeeds("apply", "other", "../testdata/kustomize", "-n", ns)
	})

	It("shows a release and the live status of its objects", func() {
		out := clitest.Succeeds("status", "demo", "-n", ns)
		Expect(out).To(ContainSubstring("Release:   " + ns + "/demo\n"))
		Expect(out).To(ContainSubstring("Revision:  1\n"))
		Expect(out).To(ContainSubstring("State:     Ready\n"))
		Expect(out).To(MatchRegexp(`WAVE\s+OBJECT\s+PHASE\s+LIVE\n0\s+ConfigMap ` + ns + `/demo-config\s+Ready\s+Current\n1\s+ConfigMap ` + ns + `/demo-app\s+Ready\s+Current\n`))

		Expect(configMapDeleted(ns, "demo-app")).To(Succeed())
		var st struct {
			Name    string `json:"name"`
			State   string `json:"state"`
			Objects []struct {
				Name       string `json:"name"`
				Phase      string `json:"phase"`
				LiveStatus string `json:"liveStatus"`
			} `json:"objects"`
		}
		Expect(json.Unmarshal([]byte(clitest.Succeeds("status", "demo", "-n", ns, "-o", "json")), &st)).To(Succeed())
		Expect(st.Name).To(Equal("demo"))
		Expect(st.Objects).To(HaveLen(2))
		Expect(st.Objects[1].Name).To(Equal("demo-app"))
		Expect(st.Objects[1].LiveStatus).To(Equal("NotFound"))

		Expect(yaml.Unmarshal([]byte(clitest.Succeeds("status", "demo", "-n", ns, "-o", "yaml")), &st)).To(Succeed())
		Expect(st.State).To(Equal("Ready"))
	})

	It("judges a live Job as apply --wait does: InProgress while its pod runs, Current once it completed", func() {
		r := clitest.Wavekit("apply", "job", "../testdata/running-job", "-n", ns, "--wait", "--timeout", "3s")
		Expect(r.Code).NotTo(Equal(0), "the Job's pod runs until the spec ends it")
		Eventually(func() string { return clitest.Succeeds("status", "job", "-n", ns) }).WithTimeout(time.Minute).
			Should(MatchRegexp(`\n0\s+batch/Job `+ns+`/migrate\s+\w+\s+InProgress\n`), "kstatus alone calls a started Job Current")

		pod := runningPodOf(ns, "migrate")
		delete(pod.Annotations, testcluster.NotReadyAnnotation)
		Expect(clitest.Env.Client.Update(context.Background(), pod)).To(Succeed())
		Eventually(func() string { return clitest.Succeeds("status", "job", "-n", ns) }).WithTimeout(time.Minute).
			Should(MatchRegexp(`\n0\s+batch/Job ` + ns + `/migrate\s+\w+\s+Current\n`))
	})

	It("lists the releases of a namespace or of all", func() {
		out := clitest.Succeeds("list", "-n", ns)
		Expect(out).To(MatchRegexp(`NAMESPACE\s+NAME\s+REVISION\s+STATE\s+OBJECTS\s+UPDATED\s+SOURCE\n` + ns + `\s+demo\s+1\s+Ready\s+2\s+`))
		Expect(out).To(MatchRegexp(ns + `\s+other\s+1\s+Ready\s+1\s+`))

		var releases []struct{ Name, Namespace string }
		Expect(yaml.Unmarshal([]byte(clitest.Succeeds("list", "-A", "-o", "yaml")), &releases)).To(Succeed())
		Expect(releases).To(ContainElements(
			struct{ Name, Namespace string }{"demo", ns}, struct{ Name, Namespace string }{"other", ns}))
		Expect(json.Unmarshal([]byte(clitest.Succeeds("list", "-n", ns, "-o", "json")), &releases)).To(Succeed())
		Expect(releases).To(HaveLen(2))
	})

	It("rejects an unknown output format", func() {
		r := clitest.Wavekit("list", "-o", "xml")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: --output xml: unknown format (use table, yaml or json)\n"))
	})
})

// runningPodOf waits until the Job named job in ns has a Running pod and
// returns it.
func runningPodOf(ns, job string) *corev1.Pod {
	GinkgoHelper()
	var pods corev1.PodList
	Eventually(func(g Gomega) {
		g.Expect(clitest.Env.Client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"job-name": job})).To(Succeed())
		g.Expect(pods.Items).To(HaveExactElements(HaveField("Status.Phase", corev1.PodRunning)))
	}).WithTimeout(time.Minute).Should(Succeed())
	return &pods.Items[0]
}
