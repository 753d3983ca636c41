package generator_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator"
)

var _ = Describe("SetImages", func() {
	ctx := context.Background()
	setImages := generator.SetImages(map[string]string{
		"nginx":                  "mirror.example.com/nginx:1.27",
		"ghcr.io/example/worker": "ghcr.io/example/worker@sha256:abc",
		"registry:5000/tool":     "registry:5000/tool:2",
	})

	transform := func(manifest string) string {
		objs, err := setImages.TransformObjects(ctx, "ns", "n", objects(manifest))
		Expect(err).NotTo(HaveOccurred())
		return yamlOf(objs)
	}

	It("sets containers and init containers of every workload kind by image name", func() {
		Expect(transform(`
apiVersion: v1
kind: Pod
metadata: {name: pod}
spec:
  initContainers: [{name: init, image: "registry:5000/tool:1"}]
  containers: [{name: web, image: nginx}, {name: other, image: nginxinc/nginx-unprivileged:1.25}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: deployment}
spec: {template: {spec: {containers: [{name: web, image: "nginx:1.25@sha256:def"}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: statefulset}
spec: {template: {spec: {containers: [{name: w, image: "ghcr.io/example/worker:3"}]}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: daemonset}
spec: {template: {spec: {initContainers: [{name: i, image: "nginx:1"}], containers: [{name: w, image: "busybox"}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec: {template: {spec: {containers: [{name: w, image: "ghcr.io/example/worker"}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cronjob}
spec: {schedule: "@daily", jobTemplate: {spec: {template: {spec: {containers: [{name: w, image: "nginx:latest"}]}}}}}
`)).To(Equal(yamlOf(objects(`
apiVersion: v1
kind: Pod
metadata: {name: pod}
spec:
  initContainers: [{name: init, image: "registry:5000/tool:2"}]
  containers: [{name: web, image: "mirror.example.com/nginx:1.27"}, {name: other, image: nginxinc/nginx-unprivileged:1.25}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: deployment}
spec: {template: {spec: {containers: [{name: web, image: "mirror.example.com/nginx:1.27"}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: statefulset}
spec: {template: {spec: {containers: [{name: w, image: "ghcr.io/example/worker@sha256:abc"}]}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: daemonset}
spec: {template: {spec: {initContainers: [{name: i, image: "mirror.example.com/nginx:1.27"}], containers: [{name: w, image: "busybox"}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec: {template: {spec: {containers: [{name: w, image: "ghcr.io/example/worker@sha256:abc"}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cronjob}
spec: {schedule: "@daily", jobTemplate: {spec: {template: {spec: {containers: [{name: w, image: "mirror.example.com/nginx:1.27"}]}}}}}
`))))
	})

	It("leaves other kinds and groups alone", func() {
		manifest := `
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {image: nginx}
---
apiVersion: example.com/v1
kind: Deployment
metadata: {name: custom}
spec: {template: {spec: {containers: [{name: w, image: nginx}]}}}
`
		Expect(transform(manifest)).To(Equal(yamlOf(objects(manifest))))
	})

	It("sets images of typed objects, with or without type meta", func() {
		deployment := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "web", Image: "nginx:1.25"}, {Name: "log", Image: "fluent-bit"}},
			}}},
		}
		pod := &corev1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: "pod"},
			Spec:       corev1.PodSpec{InitContainers: []corev1.Container{{Name: "i", Image: "nginx"}}},
		}
		objs, err := setImages.TransformObjects(ctx, "ns", "n", []client.Object{deployment, pod})
		Expect(err).NotTo(HaveOccurred())
		Expect(objs).To(Equal([]client.Object{deployment, pod}))
		Expect(deployment.Spec.Template.Spec.Containers).To(Equal([]corev1.Container{
			{Name: "web", Image: "mirror.example.com/nginx:1.27"}, {Name: "log", Image: "fluent-bit"},
		}))
		Expect(deployment.Name).To(Equal("web"))
		Expect(pod.Spec.InitContainers[0].Image).To(Equal("mirror.example.com/nginx:1.27"))
	})

	It("names the object when its containers are malformed", func() {
		_, err := setImages.TransformObjects(ctx, "ns", "n", objects(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: broken, namespace: shop}
spec: {template: {spec: {containers: "nginx"}}}
`))
		Expect(err).To(MatchError(`setting images of Deployment.apps shop/broken: .spec.template.spec.containers is a string, not a list`))
	})
})
