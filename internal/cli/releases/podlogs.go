package releases

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

const (
	// maxLogBytes bounds the log printed of one container.
	maxLogBytes = 64 << 10
	// logTimeout bounds one log request: a node that does not answer (or a
	// simulated one that has no kubelet) must not hold the run up.
	logTimeout = 10 * time.Second
	// jobNameLabel is the label the Job controller puts on a Job's pods.
	jobNameLabel = "batch.kubernetes.io/job-name"
)

// podLogs prints the logs of a test's pods, as helm test --logs does.
type podLogs struct {
	client client.Client
	pods   kubernetes.Interface
}

func newPodLogs(cl *session.Cluster) (*podLogs, error) {
	cs, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster at %s: %w", cl.Config.Host, err)
	}
	return &podLogs{client: cl.Client, pods: cs}, nil
}

// print writes the logs of the containers of the pods of test: the test
// itself when it is a Pod, a Job's pods when it is a Job; other kinds have
// none. A log the cluster cannot give is said to be missing, with why.
func (l *podLogs) print(ctx context.Context, out io.Writer, test manifests.ObjectKey) {
	pods, err := l.podsOf(ctx, test)
	if err != nil {
		fmt.Fprintf(out, "--- no logs of %s: %v\n", test, err)
		return
	}
	for i := range pods {
		pod := &pods[i]
		for _, c := range append(containerNames(pod.Spec.InitContainers), containerNames(pod.Spec.Containers)...) {
			l.printContainer(ctx, out, pod, c)
		}
	}
}

func containerNames(containers []corev1.Container) []string {
	names := make([]string, len(containers))
	for i, c := range containers {
		names[i] = c.Name
	}
	return names
}

// podsOf returns the pods of a test: itself if it is a Pod, its pods if it
// is a Job.
func (l *podLogs) podsOf(ctx context.Context, test manifests.ObjectKey) ([]corev1.Pod, error) {
	switch {
	case test.Group == "" && test.Kind == "Pod":
		pod := corev1.Pod{}
		if err := l.client.Get(ctx, client.ObjectKey{Namespace: test.Namespace, Name: test.Name}, &pod); err != nil {
			return nil, fmt.Errorf("reading the pod: %w", err)
		}
		return []corev1.Pod{pod}, nil
	case test.Group == "batch" && test.Kind == "Job":
		list := corev1.PodList{}
		err := l.client.List(ctx, &list, client.InNamespace(test.Namespace), client.MatchingLabels{jobNameLabel: test.Name})
		if err != nil {
			return nil, fmt.Errorf("listing the Job's pods: %w", err)
		}
		return list.Items, nil
	}
	return nil, nil
}

// printContainer writes one container's log under a header that names it.
func (l *podLogs) printContainer(ctx context.Context, out io.Writer, pod *corev1.Pod, container string) {
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	limit := int64(maxLogBytes)
	raw, err := l.pods.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: container, LimitBytes: &limit}).DoRaw(ctx)
	where := fmt.Sprintf("pod %s/%s (%s), container %s", pod.Namespace, pod.Name, pod.Status.Phase, container)
	if err != nil {
		fmt.Fprintf(out, "--- no logs of %s: %s\n", where, firstLine(session.UnwrapURLError(err).Error()))
		return
	}
	fmt.Fprintf(out, "--- logs of %s:\n%s", where, string(raw))
	if len(raw) > 0 && !strings.HasSuffix(string(raw), "\n") {
		fmt.Fprintln(out)
	}
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
