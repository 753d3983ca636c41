package chart_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The agent's chart (config/agent-chart): what it renders, that its
// Deployment runs a command line `wavekit agent run` accepts, and that its
// render applies to a real API server. test/agent runs the agents as the
// chart's ServiceAccount with the chart's RBAC.

var agentChartDir = filepath.Join(root, "config", "agent-chart")

const (
	agentCustomValues = "test/chart/testdata/agent-values-custom.yaml"
	// hubNamespace is what `wavekit agent register` prints for a cluster.
	hubNamespace = "fleet-east-1a2b3c4d"
)

// agentHub is the least the agent chart needs: this cluster's namespace on the hub.
var agentHub = []string{"--set", "hub.namespace=" + hubNamespace}

// renderAgent runs `helm template` for the agent chart (CRDs included) and decodes the objects.
func renderAgent(release, namespace string, args ...string) []*unstructured.Unstructured {
	GinkgoHelper()
	out, err := helm(append([]string{"template", release, agentChartDir, "--namespace", namespace, "--include-crds"}, args...)...)
	Expect(err).NotTo(HaveOccurred())
	objects, err := manifests.DecodeObjects("helm template", []byte(out))
	Expect(err).NotTo(HaveOccurred())
	return objects
}

var _ = Describe("the agent chart", func() {
	It("passes helm lint with the default and with non-default values", func() {
		Expect(helm(append([]string{"lint", "--strict", agentChartDir}, agentHub...)...)).To(ContainSubstring("0 chart(s) failed"))
		Expect(helm("lint", "--strict", agentChartDir, "-f", agentCustomValues)).To(ContainSubstring("0 chart(s) failed"))
	})

	It("refuses to render without the cluster's namespace on the hub, and values the schema forbids", func() {
		_, err := helm("template", "x", agentChartDir)
		Expect(err).To(MatchError(ContainSubstring("hub.namespace is required: this cluster's namespace on the hub")))
		_, err = helm("template", "x", agentChartDir, "--set", "hub.namespace=Not_A_Namespace")
		Expect(err).To(MatchError(ContainSubstring("/hub/namespace")))
		_, err = helm(append([]string{"template", "x", agentChartDir, "--set", "rbac.manageEverythng=true"}, agentHub...)...)
		Expect(err).To(MatchError(ContainSubstring("'manageEverythng' not allowed")))
		_, err = helm(append([]string{"template", "x", agentChartDir, "--set", "sources[0].name=a,sources[0].configMap=a,sources[0].path=/a"}, agentHub...)...)
		Expect(err).To(MatchError(ContainSubstring("/sources/0")))
		_, err = helm(append([]string{"template", "x", agentChartDir, "--set", "hub.leaseDuration=forty seconds"}, agentHub...)...)
		Expect(err).To(MatchError(ContainSubstring("/hub/leaseDuration")))
	})

	It("renders one hardened agent with the Component CRD, its ServiceAccount and the rights its engine needs", func() {
		objects := renderAgent("wavekit-agent", "wavekit-agent", agentHub...)
		Expect(ids(objects)).To(ConsistOf(
			"CustomResourceDefinition /components.wavekit.dev",
			"ServiceAccount wavekit-agent/wavekit-agent",
			"ClusterRole /wavekit-agent",
			"ClusterRoleBinding /wavekit-agent",
			"Role wavekit-agent/wavekit-agent-render-key",
			"RoleBinding wavekit-agent/wavekit-agent-render-key",
			"Role wavekit-agent/wavekit-agent-credentials",
			"RoleBinding wavekit-agent/wavekit-agent-credentials",
			"Deployment wavekit-agent/wavekit-agent",
		))

		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-agent", "wavekit-agent", &deployment)
		Expect(*deployment.Spec.Replicas).To(BeEquivalentTo(1))
		Expect(deployment.Spec.Strategy.Type).To(Equal(appsv1.RecreateDeploymentStrategyType), "never two agents of one cluster at once")
		pod := deployment.Spec.Template.Spec
		Expect(pod.ServiceAccountName).To(Equal("wavekit-agent"))
		agent := pod.Containers[0]
		Expect(agent.Image).To(Equal("ghcr.io/wavekit-dev/wavekit-agent:" + agentAppVersion()))
		Expect(agent.Command).To(Equal([]string{"/wavekit"}))
		Expect(agent.Args).To(Equal([]string{"agent", "run",
			"--operator-name=wavekit.dev",
			"--hub-namespace=" + hubNamespace,
			"--hub-kubeconfig=/etc/wavekit/hub/kubeconfig",
			"--credentials-secret=wavekit-agent/wavekit-agent-credentials",
			"--health-probe-bind-address=:8081",
		}), "no metrics endpoint unless asked for")
		Expect(agent.Ports).To(Equal([]corev1.ContainerPort{{Name: "health", ContainerPort: 8081, Protocol: corev1.ProtocolTCP}}))
		Expect(agent.LivenessProbe.HTTPGet).To(And(HaveField("Path", "/healthz"), HaveField("Port.StrVal", "health")))
		Expect(agent.ReadinessProbe.HTTPGet).To(And(HaveField("Path", "/readyz"), HaveField("Port.StrVal", "health")))
		Expect(agent.Env).To(ContainElement(HaveField("Name", "POD_NAMESPACE")), "the render key Secret goes to the agent's namespace")
		Expect(agent.VolumeMounts).To(ConsistOf(
			corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"},
			corev1.VolumeMount{Name: "hub-kubeconfig", MountPath: "/etc/wavekit/hub", ReadOnly: true},
		))
		Expect(pod.Volumes).To(ContainElement(And(HaveField("Name", "hub-kubeconfig"),
			HaveField("Secret.SecretName", "wavekit-agent-hub"),
			HaveField("Secret.Items", []corev1.KeyToPath{{Key: "kubeconfig", Path: "kubeconfig"}}))))

		By("running as hardened as the operator: the same pod and container security contexts")
		Expect(pod.SecurityContext).To(Equal(operatorValue[*corev1.PodSecurityContext]("podSecurityContext")))
		Expect(agent.SecurityContext).To(Equal(operatorValue[*corev1.SecurityContext]("securityContext")))

		By("granting Components, their status and finalizers, events, namespaces, and no wildcard")
		var role rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-agent", &role)
		Expect(role.Rules).To(ContainElements(
			rule("wavekit.dev", "components", "get", "list", "watch", "create", "update", "patch", "delete"),
			rule("wavekit.dev", "components/status", "get", "update", "patch"),
			rule("wavekit.dev", "components/finalizers", "update"),
			rule("", "events", "get", "list", "watch", "create", "update", "patch"),
			rule("apiextensions.k8s.io", "customresourcedefinitions", "get", "list", "watch"),
			rule("", "namespaces", "get", "list", "watch", "create", "update", "patch"),
			rule("", "secrets", "get", "create", "update"),
		))
		Expect(role.Rules).NotTo(ContainElement(HaveField("APIGroups", ContainElement("coordination.k8s.io"))),
			"the Lease is on the hub, under the registered identity")
		Expect(role.Rules).NotTo(ContainElement(HaveField("Resources", ContainElement("componentworks"))))
		Expect(wildcards(role.Rules)).To(BeEmpty())
		var key rbacv1.Role
		find(objects, "Role", "wavekit-agent", "wavekit-agent-render-key", &key)
		Expect(key.Rules).To(ContainElement(HaveField("ResourceNames", []string{"wavekit.dev-render-key"})))
		var credentials rbacv1.Role
		find(objects, "Role", "wavekit-agent", "wavekit-agent-credentials", &credentials)
		Expect(credentials.Rules).To(ConsistOf(
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"wavekit-agent-credentials"}, Verbs: []string{"get", "update"}},
			rule("", "secrets", "create")), "the one Secret it keeps its hub credential in")
	})

	It("renders what non-default values say", func() {
		objects := renderAgent("edge", "edge-system", "-f", agentCustomValues)
		Expect(ids(objects)).To(ContainElements(
			"ClusterRole /edge-wavekit-agent", "Role team-a/edge-wavekit-agent", "RoleBinding team-b/edge-wavekit-agent",
			"ClusterRole /edge-wavekit-agent-cluster",
		))
		Expect(ids(objects)).NotTo(ContainElement(ContainSubstring("render-key")), "rbac.keepRenders is false")
		var deployment appsv1.Deployment
		find(objects, "Deployment", "edge-system", "edge-wavekit-agent", &deployment)
		agent := deployment.Spec.Template.Spec.Containers[0]
		Expect(agent.Image).To(Equal("registry.example.com/wavekit-agent@sha256:" + strings.Repeat("ab", 32)))
		Expect(agent.Args).To(ContainElements("--operator-name=edge.example.com", "--lease-duration=20s",
			"--credentials-secret=edge-system/edge-hub-credentials",
			"--source=web=/sources/web", "--source=baked=/opt/sources/baked", "--qps=50",
			"--health-probe-bind-address=:9091", "--metrics-bind-address=:9090"))
		Expect(agent.Ports).To(ConsistOf(HaveField("ContainerPort", BeEquivalentTo(9090)), HaveField("ContainerPort", BeEquivalentTo(9091))))
		Expect(deployment.Spec.Template.Spec.Volumes).To(ContainElements(
			HaveField("Secret.SecretName", "edge-hub"),
			HaveField("ConfigMap.Name", "web-source")))
		Expect(agent.Env).To(ContainElement(corev1.EnvVar{Name: "GOMEMLIMIT", Value: "200MiB"}))

		var clusterRole rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "edge-wavekit-agent", &clusterRole)
		Expect(clusterRole.Rules).NotTo(ContainElement(HaveField("Resources", ContainElement("deployments"))),
			"rbac.namespaces narrows extraRules to Roles")
		Expect(clusterRole.Rules).NotTo(ContainElement(HaveField("Resources", ContainElement("secrets"))),
			"readSources and keepRenders are off")
		Expect(clusterRole.Rules).To(ContainElement(rule("", "namespaces", "get", "list", "watch")), "createNamespaces is off")
		var teamRole rbacv1.Role
		find(objects, "Role", "team-a", "edge-wavekit-agent", &teamRole)
		Expect(teamRole.Rules).To(ConsistOf(rule("apps", "deployments", "get", "list", "watch", "create", "update", "patch", "delete")))
	})

	It("runs a command line that wavekit agent run accepts", func() {
		for _, values := range [][]string{agentHub, {"-f", agentCustomValues}} {
			var deployment appsv1.Deployment
			objects := renderAgent("x", "x", values...)
			for _, u := range objects {
				if u.GetKind() == "Deployment" {
					find(objects, "Deployment", "x", u.GetName(), &deployment)
				}
			}
			args := deployment.Spec.Template.Spec.Containers[0].Args
			root := cli.NewRootCommand(io.Discard, io.Discard)
			cmd, rest, err := root.Find(args)
			Expect(err).NotTo(HaveOccurred())
			Expect(cmd.CommandPath()).To(Equal("wavekit agent run"))
			Expect(cmd.ParseFlags(rest)).To(Succeed(), "%v", args)
			Expect(cmd.Flags().Args()).To(BeEmpty())
		}
	})

	It("is built with its image's entrypoint, from the Dockerfile's target agent", func() {
		data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
		Expect(err).NotTo(HaveOccurred())
		stage := regexp.MustCompile(`(?s)\nFROM \S+ AS agent\n(.*?)\n\n`).FindStringSubmatch(string(data))
		Expect(stage).NotTo(BeNil(), "the Dockerfile has a stage named agent")
		Expect(stage[1]).To(ContainSubstring("\nENTRYPOINT [\"/wavekit\"]\n"))
		Expect(stage[1]).To(ContainSubstring("\nUSER 65532:65532\n"))
		Expect(stage[1]).To(ContainSubstring("COPY --from=agent-builder /out/wavekit /wavekit\n"))
		Expect(string(data)).To(ContainSubstring("-o /out/wavekit ./cmd/wavekit\n"))
		Expect(string(data)).To(MatchRegexp(`\nENTRYPOINT \["/component-operator"\]\n?$`), "docker build . still builds the operator")

		image := regexp.MustCompile(`-t (\S+) \.`).FindStringSubmatch(makeOutput("-n", "docker-build-agent"))
		Expect(image).NotTo(BeNil())
		version := strings.TrimSpace(makeOutput("-s", "version"))
		Expect(image[1]).To(Equal("ghcr.io/wavekit-dev/wavekit-agent:"+version), "the chart's default image repository")
		Expect(agentImageBuild(makeOutput("-n", "agent-image"))).To(Equal(image[1]), "make agent-image builds the image docker-build-agent does")
	})

	It("is in a release: make dist builds its image and packages its chart", func() {
		version := strings.TrimSpace(makeOutput("-s", "version"))
		dist := GinkgoT().TempDir()
		plan := makeOutput("-n", "dist", "DIST="+dist)
		Expect(agentImageBuild(plan)).To(Equal("ghcr.io/wavekit-dev/wavekit-agent:"+version), "make dist builds the agent image")
		Expect(plan).To(ContainSubstring(" -out " + dist + "\n"))
		Expect(plan).To(MatchRegexp(`helm package config/agent-chart --version %s --app-version %s --destination %s\n`,
			regexp.QuoteMeta(strings.TrimPrefix(version, "v")), regexp.QuoteMeta(version), regexp.QuoteMeta(dist)))
		sums := strings.Index(plan, "sha256sum")
		Expect(sums).To(BeNumerically(">", strings.Index(plan, "helm package config/agent-chart")), "SHA256SUMS covers the agent chart")
		Expect(sums).To(BeNumerically(">", strings.Index(plan, "-program agent")), "SHA256SUMS covers the agent image's archives")
		Expect(makeOutput("-n", "image")).To(ContainSubstring("-program agent"), "make image builds the agent's image too")
		Expect(makeOutput("-n", "image-push")).To(ContainSubstring("push -archive " + filepath.Join("dist", "wavekit-agent-"+version+".oci.tar") + " -image ghcr.io/wavekit-dev/wavekit-agent:" + version + "\n"))
	})

	It("is packaged with the version of make version, its default image tagged with it", func() {
		version := strings.TrimSpace(makeOutput("-s", "version"))
		dist := GinkgoT().TempDir()
		makeOutput("-s", "agent-chart-package", "DIST="+dist)
		packaged := filepath.Join(dist, "wavekit-agent-"+strings.TrimPrefix(version, "v")+".tgz")
		out, err := helm(append([]string{"template", "wavekit-agent", packaged, "--namespace", "wavekit-agent"}, agentHub...)...)
		Expect(err).NotTo(HaveOccurred())
		objects, err := manifests.DecodeObjects("helm template", []byte(out))
		Expect(err).NotTo(HaveOccurred())
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-agent", "wavekit-agent", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Image).To(Equal("ghcr.io/wavekit-dev/wavekit-agent:" + version))
		Expect(deployment.Spec.Template.Spec.Containers[0].Image).To(Equal(agentImageBuild(makeOutput("-n", "agent-image"))),
			"the packaged chart's default image is the one make agent-image builds")
	})

	It("ships the Component CRD as config/crd/bases has it", func() {
		generated := readDir(filepath.Join(root, "config", "crd", "bases"))
		Expect(readDir(filepath.Join(agentChartDir, "crds"))).To(Equal(map[string]string{
			"wavekit.dev_components.yaml": generated["wavekit.dev_components.yaml"]}),
			"config/agent-chart/crds is stale: make manifests")
	})

	It("says in its NOTES how to check that the agent joined", func() {
		chart, err := loader.Load(agentChartDir)
		Expect(err).NotTo(HaveOccurred())
		install := action.NewInstall(&action.Configuration{})
		install.ClientOnly, install.DryRun = true, true
		install.ReleaseName, install.Namespace = "wavekit-agent", "wavekit-agent"
		release, err := install.Run(chart, map[string]any{"hub": map[string]any{"namespace": hubNamespace}})
		Expect(err).NotTo(HaveOccurred())
		Expect(release.Info.Notes).To(ContainSubstring("kubectl -n wavekit-agent rollout status deployment/wavekit-agent"))
		Expect(release.Info.Notes).To(ContainSubstring("kubectl -n " + hubNamespace + " get lease wavekit-agent"))
		Expect(release.Info.Notes).To(ContainSubstring("kubectl -n " + hubNamespace + " get componentworks"))
		Expect(release.Info.Notes).To(ContainSubstring("no rbac.extraRules are set, so the agent may deploy nothing yet"))
	})
})

var _ = Describe("applying the rendered agent chart", Ordered, func() {
	var member *testcluster.Env
	ctx := context.Background()

	BeforeAll(func() {
		members, err := testcluster.StartClusters(1)
		Expect(err).NotTo(HaveOccurred())
		member = members[0]
		DeferCleanup(func() { Expect(member.Stop()).To(Succeed()) })
		Expect(apiextensionsv1.AddToScheme(member.Scheme)).To(Succeed())
		member.Client, err = client.New(member.Config, client.Options{Scheme: member.Scheme})
		Expect(err).NotTo(HaveOccurred())
		for _, ns := range []string{"wavekit-agent", "edge-system", "team-a", "team-b"} {
			Expect(member.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		}
	})

	// install creates every object, the CRD first (established before the rest goes in),
	// as helm install does on a cluster without the release.
	install := func(objects []*unstructured.Unstructured) {
		GinkgoHelper()
		for _, crds := range []bool{true, false} {
			for _, u := range objects {
				if (u.GetKind() == "CustomResourceDefinition") != crds {
					continue
				}
				err := member.Client.Create(ctx, u.DeepCopy())
				Expect(client.IgnoreAlreadyExists(err)).To(Succeed(), "creating %s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
				if crds {
					Eventually(func() []apiextensionsv1.CustomResourceDefinitionCondition {
						var crd apiextensionsv1.CustomResourceDefinition
						Expect(member.Client.Get(ctx, client.ObjectKeyFromObject(u), &crd)).To(Succeed())
						return crd.Status.Conditions
					}).WithTimeout(30 * time.Second).Should(ContainElement(And(
						HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
				}
			}
		}
	}

	It("creates the default render", func() {
		install(renderAgent("wavekit-agent", "wavekit-agent", agentHub...))
		var deployment appsv1.Deployment
		Expect(member.Client.Get(ctx, client.ObjectKey{Namespace: "wavekit-agent", Name: "wavekit-agent"}, &deployment)).To(Succeed())
	})

	It("creates the non-default render", func() {
		install(renderAgent("edge", "edge-system", "-f", agentCustomValues))
		var role rbacv1.Role
		Expect(member.Client.Get(ctx, client.ObjectKey{Namespace: "team-b", Name: "edge-wavekit-agent"}, &role)).To(Succeed())
	})
})

// operatorValue is the operator chart's value key, as a T.
func operatorValue[T any](key string) T {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var values map[string]any
	Expect(yaml.Unmarshal(data, &values)).To(Succeed())
	raw, err := yaml.Marshal(values[key])
	Expect(err).NotTo(HaveOccurred())
	var out T
	Expect(yaml.Unmarshal(raw, &out)).To(Succeed())
	return out
}

// agentImageBuild is the image the plan of make -n names in its agent image build
// (hack/image build -program agent ... -image NAME).
func agentImageBuild(plan string) string {
	GinkgoHelper()
	build := regexp.MustCompile(`hack/image build -program agent .* -image (\S+) `).FindStringSubmatch(plan)
	Expect(build).NotTo(BeNil(), "the plan builds the agent image:\n%s", plan)
	return build[1]
}

// agentAppVersion is the agent chart's appVersion, the default image tag.
func agentAppVersion() string {
	GinkgoHelper()
	chart, err := loader.Load(agentChartDir)
	Expect(err).NotTo(HaveOccurred())
	return chart.Metadata.AppVersion
}
