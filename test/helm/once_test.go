package helm_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
)

// onceOperator is the name of the operator of the ttlhooks and unpurged
// specs (runonce_test.go, unpurged_test.go), which stop it and start it
// again; the suite's operator leaves their Components alone, since it does
// not serve their source.
const onceOperator = "once.wavekit.dev"

// onceSpecs is what an Ordered container of specs of onceOperator shares:
// the observer of its namespace's Jobs and the operator.
type onceSpecs struct {
	jobs *jobObserver
	op   *restartableOperator
}

// useOnceOperator sets up the Ordered container it is called in: before
// its first spec it creates namespace, observes its Jobs and starts the
// operator, which it stops after its last.
func useOnceOperator(namespace string) *onceSpecs {
	once := &onceSpecs{op: &restartableOperator{}}
	BeforeAll(func() {
		newNamespace(context.Background(), namespace)
		once.jobs = observeJobs(namespace)
		once.op.start()
		DeferCleanup(once.op.stop)
	})
	return once
}

// describe names the Jobs in the order their runs appeared, for a failure
// message.
func (o *jobObserver) describe() string {
	return fmt.Sprintf("Jobs in the order they ran: %v", o.Order())
}

// restartableOperator is the reference operator of onceOperator, running
// in this process from start until stop: stopping it and starting it again
// is a restart, which keeps nothing but what the cluster holds.
type restartableOperator struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// start starts a new manager of the operator, serving the ttlhooks and
// unpurged charts.
func (op *restartableOperator) start() {
	GinkgoHelper()
	mgr, err := ctrl.NewManager(env.Config, componenttest.ManagerOptions(scheme))
	Expect(err).NotTo(HaveOccurred())
	_, err = operator.Setup(mgr, operator.Options{Name: onceOperator, Sources: map[string]string{
		"ttlhooks": chartDir("ttlhooks"), "unpurged": chartDir("unpurged")}})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	op.cancel, op.done = cancel, done
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
}

// stop stops the operator, if it runs, and waits until it has stopped.
func (op *restartableOperator) stop() {
	if op.cancel == nil {
		return
	}
	op.cancel()
	<-op.done
}

// onceComponent is a Component of the chart source with values.
func onceComponent(source, namespace, name, values string) *v1alpha1.Component {
	return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1alpha1.ComponentSpec{Source: source, Values: &apiextensionsv1.JSON{Raw: []byte(values)}}}
}

// replaceValues replaces the Component's values with a patch, which the
// operator's status writes (a hook Job's deletion is reported) do not
// make conflict.
func replaceValues(ctx context.Context, c *v1alpha1.Component, values string) {
	GinkgoHelper()
	patch := []byte(`[{"op":"replace","path":"/spec/values","value":` + values + `}]`)
	Expect(env.Client.Patch(ctx, c, client.RawPatch(types.JSONPatchType, patch))).To(Succeed())
}

// jobActive returns the Job's count of running pods, as the Job controller
// reports it (0 when there is no such Job).
func jobActive(ctx context.Context, namespace, name string) int32 {
	GinkgoHelper()
	var job batchv1.Job
	if !exists(ctx, &job, namespace, name) {
		return 0
	}
	return job.Status.Active
}

// releasePods lets kwok finish the pods of the Job: it removes their
// wavekit.dev/test-not-ready annotation (metadata, not status).
func releasePods(ctx context.Context, namespace, job string) {
	GinkgoHelper()
	var pods corev1.PodList
	Expect(env.Client.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabels{"job-name": job})).To(Succeed())
	Expect(pods.Items).NotTo(BeEmpty())
	for i := range pods.Items {
		patch := []byte(`{"metadata":{"annotations":{"wavekit.dev/test-not-ready":null}}}`)
		Expect(env.Client.Patch(ctx, &pods.Items[i], client.RawPatch(types.MergePatchType, patch))).To(Succeed())
	}
}
