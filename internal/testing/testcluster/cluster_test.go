package testcluster_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The controllers act within seconds; the bound leaves room for a loaded
// machine.
const clusterTimeout = time.Minute

var _ = Describe("the test cluster with controllers", Label("cluster"), Ordered, func() {
	var (
		env *testcluster.Env
		c   client.Client
		ns  string
	)
	ctx := context.Background()

	BeforeAll(func() {
		var err error
		env, err = testcluster.Start(testcluster.Options{Controllers: true})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
		c = env.Client
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cluster-"}}
		Expect(c.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
	})

	It("has Ready fake Nodes", func() {
		var nodes corev1.NodeList
		Expect(c.List(ctx, &nodes)).To(Succeed())
		Expect(nodes.Items).To(HaveLen(len(testcluster.FakeNodes)))
		for _, node := range nodes.Items {
			Expect(node.Status.Conditions).To(ContainElement(And(
				HaveField("Type", corev1.NodeReady), HaveField("Status", corev1.ConditionTrue))))
		}
	})

	It("rolls a Deployment out to Available through a ReplicaSet and pods on fake Nodes", func() {
		deploy := deployment(ns, "web", 2)
		Expect(c.Create(ctx, deploy)).To(Succeed())

		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(deploy), deploy)).To(Succeed())
			g.Expect(deploy.Status.AvailableReplicas).To(Equal(int32(2)))
			g.Expect(deploy.Status.Conditions).To(ContainElement(And(
				HaveField("Type", appsv1.DeploymentAvailable), HaveField("Status", corev1.ConditionTrue))))
		}).WithTimeout(clusterTimeout).Should(Succeed())

		var sets appsv1.ReplicaSetList
		Expect(c.List(ctx, &sets, client.InNamespace(ns), client.MatchingLabels{"app": "web"})).To(Succeed())
		Expect(sets.Items).To(HaveLen(1))
		Expect(metav1.IsControlledBy(&sets.Items[0], deploy)).To(BeTrue())

		pods := podsOf(ctx, c, ns, "web")
		Expect(pods).To(HaveLen(2))
		for _, pod := range pods {
			Expect(testcluster.FakeNodes).To(ContainElement(pod.Spec.NodeName))
			Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
			Expect(metav1.IsControlledBy(&pod, &sets.Items[0])).To(BeTrue())
		}
	})

	It("completes a Job whose pod succeeds", func() {
		job := job(ns, "migrate", false)
		Expect(c.Create(ctx, job)).To(Succeed())

		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed())
			g.Expect(job.Status.Conditions).To(ContainElement(And(
				HaveField("Type", batchv1.JobComplete), HaveField("Status", corev1.ConditionTrue))))
		}).WithTimeout(clusterTimeout).Should(Succeed())
		Expect(job.Status.Succeeded).To(Equal(int32(1)))
		pods := podsOf(ctx, c, ns, "migrate")
		Expect(pods).To(HaveLen(1))
		Expect(pods[0].Status.Phase).To(Equal(corev1.PodSucceeded))
	})

	It("runs a pod only as a ServiceAccount that exists (ServiceAccount admission)", func() {
		job := job(ns, "hook", false)
		job.Spec.Template.Spec.ServiceAccountName = "hook-account"
		Expect(c.Create(ctx, job)).To(Succeed())

		Eventually(func() string { return eventMessages(ctx, c, ns, "hook") }).WithTimeout(clusterTimeout).
			Should(ContainSubstring(`serviceaccount "hook-account" not found`))
		Expect(podsOf(ctx, c, ns, "hook")).To(BeEmpty(), "the API server refuses the pod of a missing account")

		Expect(c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook-account"}})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed())
			g.Expect(job.Status.Succeeded).To(Equal(int32(1)))
		}).WithTimeout(clusterTimeout).Should(Succeed())
		pods := podsOf(ctx, c, ns, "hook")
		Expect(pods).To(HaveLen(1))
		Expect(pods[0].Spec.ServiceAccountName).To(Equal("hook-account"))
	})

	It("fails a Job whose pod carries the fail annotation once its backoffLimit is spent", func() {
		job := job(ns, "broken", true)
		Expect(c.Create(ctx, job)).To(Succeed())

		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed())
			g.Expect(job.Status.Conditions).To(ContainElement(And(
				HaveField("Type", batchv1.JobFailed),
				HaveField("Status", corev1.ConditionTrue),
				HaveField("Reason", batchv1.JobReasonBackoffLimitExceeded),
				HaveField("Message", "Job has reached the specified backoff limit"))))
		}).WithTimeout(clusterTimeout).Should(Succeed())
		Expect(job.Status.Failed).To(Equal(int32(1)))
		pods := podsOf(ctx, c, ns, "broken")
		Expect(pods).To(HaveLen(1))
		Expect(pods[0].Status.Phase).To(Equal(corev1.PodFailed))
	})

	It("runs a pod that carries the not-ready annotation but never makes it Ready", func() {
		stuck := deployment(ns, "stuck", 1)
		stuck.Spec.Template.Annotations = map[string]string{testcluster.NotReadyAnnotation: "true"}
		Expect(c.Create(ctx, stuck)).To(Succeed())

		Eventually(func(g Gomega) {
			pods := podsOf(ctx, c, ns, "stuck")
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Status.Phase).To(Equal(corev1.PodRunning))
		}).WithTimeout(clusterTimeout).Should(Succeed())
		notReady := ContainElement(And(HaveField("Type", corev1.PodReady), HaveField("Status", corev1.ConditionFalse),
			HaveField("Reason", "ContainersNotReady")))
		Consistently(func(g Gomega) {
			pods := podsOf(ctx, c, ns, "stuck")
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Status.Phase).To(Equal(corev1.PodRunning))
			g.Expect(pods[0].Status.Conditions).To(notReady)
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(stuck), stuck)).To(Succeed())
			g.Expect(stuck.Status.AvailableReplicas).To(BeZero())
		}).WithTimeout(5 * time.Second).Should(Succeed())
		Expect(c.Delete(ctx, stuck)).To(Succeed())
	})

	It("removes a Deployment's ReplicaSet and pods on foreground deletion (garbage collector)", func() {
		deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
		Expect(c.Delete(ctx, deploy, client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())

		Eventually(func(g Gomega) {
			err := c.Get(ctx, client.ObjectKeyFromObject(deploy), deploy)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Deployment is still there: %v", err)
		}).WithTimeout(clusterTimeout).Should(Succeed())
		var sets appsv1.ReplicaSetList
		Expect(c.List(ctx, &sets, client.InNamespace(ns), client.MatchingLabels{"app": "web"})).To(Succeed())
		Expect(sets.Items).To(BeEmpty())
		Expect(podsOf(ctx, c, ns, "web")).To(BeEmpty())
	})

	It("removes a deleted Namespace with the objects in it (namespace controller)", func() {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		Expect(c.Delete(ctx, namespace)).To(Succeed())

		Eventually(func(g Gomega) {
			err := c.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Namespace is still there: %v", err)
		}).WithTimeout(clusterTimeout).Should(Succeed())
		var jobs batchv1.JobList
		Expect(c.List(ctx, &jobs, client.InNamespace(ns))).To(Succeed())
		Expect(jobs.Items).To(BeEmpty())
	})
})

func deployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.invalid/app:1"}}},
			},
		},
	}
}

// job is a Job of one pod without retries; failing adds the annotation that
// makes kwok fail its pod.
func job(ns, name string, failing bool) *batchv1.Job {
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "run", Image: "example.invalid/run:1"}},
		},
	}
	if failing {
		template.Annotations = map[string]string{testcluster.FailAnnotation: "true"}
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(int32(0)), Template: template},
	}
}

// podsOf lists the pods of ns labelled app=name.
func podsOf(ctx context.Context, c client.Client, ns, name string) []corev1.Pod {
	var pods corev1.PodList
	ExpectWithOffset(1, c.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"app": name})).To(Succeed())
	return pods.Items
}

var _ = Describe("starting the test cluster", Label("cluster"), func() {
	It("says which component is missing from KUBEBUILDER_ASSETS, before it starts anything", func() {
		assets, err := testcluster.Assets()
		Expect(err).NotTo(HaveOccurred())
		old := GinkgoT().TempDir()
		for _, name := range []string{"kube-apiserver", "etcd"} {
			Expect(os.Symlink(filepath.Join(assets, name), filepath.Join(old, name))).To(Succeed())
		}
		GinkgoT().Setenv("KUBEBUILDER_ASSETS", old)

		_, err = testcluster.Start(testcluster.Options{Controllers: true})
		Expect(err).To(MatchError(ContainSubstring("no kube-controller-manager in " + old +
			": hack/control-plane.sh builds it (make control-plane)")))
	})
})

// eventMessages joins the messages of the Events about the object named
// name in ns.
func eventMessages(ctx context.Context, c client.Client, ns, name string) string {
	var events corev1.EventList
	ExpectWithOffset(1, c.List(ctx, &events, client.InNamespace(ns))).To(Succeed())
	var messages []string
	for _, e := range events.Items {
		if e.InvolvedObject.Name == name {
			messages = append(messages, e.Message)
		}
	}
	return strings.Join(messages, "\n")
}
