package chart_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

const (
	customValues = "test/chart/testdata/values-custom.yaml"
	// examplesValues are the values README's quick start installs the chart with.
	examplesValues = "examples/operator-values.yaml"
)

var _ = Describe("helm lint", func() {
	It("passes with the default values", func() {
		Expect(helm("lint", "--strict", chartDir)).To(ContainSubstring("0 chart(s) failed"))
	})

	It("passes with non-default values", func() {
		Expect(helm("lint", "--strict", chartDir, "-f", customValues)).To(ContainSubstring("0 chart(s) failed"))
	})

	It("passes with the values of examples/operator-values.yaml", func() {
		Expect(helm("lint", "--strict", chartDir, "-f", examplesValues)).To(ContainSubstring("0 chart(s) failed"))
	})

})

var _ = Describe("values.schema.json", func() {
	It("rejects values that the schema forbids", func() {
		_, err := helm("template", "x", chartDir, "--set", "sources[0].name=a,sources[0].configMap=a,sources[0].path=/a")
		Expect(err).To(MatchError(ContainSubstring("/sources/0")))
		_, err = helm("template", "x", chartDir, "--set", "rbac.manageEverythng=true")
		Expect(err).To(MatchError(ContainSubstring("'manageEverythng' not allowed")))
		_, err = helm("template", "x", chartDir, "--set", "defaultServiceAccount=Not_A_Name")
		Expect(err).To(MatchError(ContainSubstring("/defaultServiceAccount")))
		_, err = helm("template", "x", chartDir, "--set", "metrics.readers[0].kind=Robot,metrics.readers[0].name=r")
		Expect(err).To(MatchError(ContainSubstring("/metrics/readers/0/kind")))
		_, err = helm(append([]string{"template", "x", chartDir, "--set", "shards={a,not a key}"}, oneSource...)...)
		Expect(err).To(MatchError(ContainSubstring("/shards/1")))
	})
})

var _ = Describe("helm template with shards", func() {
	It("renders a Deployment per shard key, each with its own pods and key, and the unsharded one as before", func() {
		objects := render("wavekit", "wavekit-system", append([]string{"--set", "shards={,blue,green}"}, oneSource...)...)
		for key, name := range map[string]string{"": "wavekit-component-operator", "blue": "wavekit-component-operator-shard-blue", "green": "wavekit-component-operator-shard-green"} {
			var deployment appsv1.Deployment
			find(objects, "Deployment", "wavekit-system", name, &deployment)
			args := deployment.Spec.Template.Spec.Containers[0].Args
			if key == "" {
				Expect(args).NotTo(ContainElement(HavePrefix("--shard")))
				Expect(deployment.Spec.Selector.MatchLabels).NotTo(HaveKey("app.kubernetes.io/shard"))
				continue
			}
			Expect(args).To(ContainElement("--shard=" + key))
			Expect(deployment.Spec.Selector.MatchLabels).To(HaveKeyWithValue("app.kubernetes.io/shard", key))
			Expect(deployment.Spec.Template.Labels).To(HaveKeyWithValue("app.kubernetes.io/shard", key))
		}
	})
})

var _ = Describe("the chart's CRDs", func() {
	It("are a copy of config/crd/bases", func() {
		generated := readDir(filepath.Join(root, "config", "crd", "bases"))
		Expect(readDir(filepath.Join(chartDir, "crds"))).To(Equal(generated),
			"config/chart/crds is stale: cp config/crd/bases/*.yaml config/chart/crds/")
	})
})

// oneSource is the least a chart needs besides its defaults: a source.
var oneSource = []string{"--set", "sources[0].name=web", "--set", "sources[0].path=/opt/sources/web"}

var _ = Describe("helm template with no source", func() {
	It("renders an operator for charts from repositories and Flux sources only", func() {
		objects := render("wavekit", "wavekit-system")
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(deployment.Spec.Template.Spec.Containers[0].Args).NotTo(ContainElement(HavePrefix("--source=")))
	})
})

var _ = Describe("helm template with the default values and one source", func() {
	var objects []*unstructured.Unstructured
	BeforeEach(func() { objects = render("wavekit", "wavekit-system", oneSource...) })

	It("renders a cluster-wide operator without leader election", func() {
		Expect(ids(objects)).To(ConsistOf(
			"CustomResourceDefinition /components.wavekit.dev",
			"CustomResourceDefinition /componentsets.wavekit.dev",
			"CustomResourceDefinition /componentworks.wavekit.dev",
			"CustomResourceDefinition /alerts.wavekit.dev",
			"CustomResourceDefinition /providers.wavekit.dev",
			"CustomResourceDefinition /receivers.wavekit.dev",
			"CustomResourceDefinition /componentdefinitions.wavekit.dev",
			"CustomResourceDefinition /componentdefinitionrevisions.wavekit.dev",
			"ServiceAccount wavekit-system/wavekit-component-operator",
			"ClusterRole /wavekit-component-operator-agents",
			"ClusterRoleBinding /wavekit-component-operator-agents",
			"ClusterRole /wavekit-component-operator",
			"ClusterRoleBinding /wavekit-component-operator",
			"ClusterRole /wavekit-component-operator-crds-namespaces",
			"ClusterRoleBinding /wavekit-component-operator-crds-namespaces",
			"ClusterRole /wavekit-component-operator-metrics-auth",
			"ClusterRoleBinding /wavekit-component-operator-metrics-auth",
			"ClusterRole /wavekit-component-operator-metrics-reader",
			"Role wavekit-system/wavekit-component-operator-render-key",
			"RoleBinding wavekit-system/wavekit-component-operator-render-key",
			"Service wavekit-system/wavekit-component-operator-metrics",
			"Deployment wavekit-system/wavekit-component-operator",
		))

		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		Expect(*deployment.Spec.Replicas).To(BeEquivalentTo(1))
		pod := deployment.Spec.Template.Spec
		Expect(pod.ServiceAccountName).To(Equal("wavekit-component-operator"))
		Expect(pod.Containers).To(HaveLen(1))
		operator := pod.Containers[0]
		Expect(operator.Image).To(Equal("ghcr.io/wavekit-dev/component-operator:" + appVersion()))
		Expect(operator.Command).To(Equal([]string{"/component-operator"}))
		Expect(operator.Args).To(Equal([]string{
			"--operator-name=wavekit.dev",
			"--render-key-secret=wavekit-system/wavekit-component-operator-render-key",
			"--source=web=/opt/sources/web",
			"--concurrent=8",
			"--metrics-bind-address=:8443",
			"--metrics-secure=true",
			"--health-probe-bind-address=:8081",
			"--zap-log-level=info",
		}))
		Expect(operator.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
		Expect(operator.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
		Expect(operator.ReadinessProbe.HTTPGet.Port).To(Equal(intstr.FromString("health")))
		Expect(operator.Ports).To(ContainElement(HaveField("ContainerPort", BeEquivalentTo(8081))))
		Expect(operator.Resources.Requests).To(HaveKey(corev1.ResourceMemory))

		By("running hardened: non-root, read-only root, no privilege escalation, no capabilities")
		Expect(*pod.SecurityContext.RunAsNonRoot).To(BeTrue())
		Expect(pod.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
		sc := operator.SecurityContext
		Expect(*sc.RunAsNonRoot).To(BeTrue())
		Expect(*sc.ReadOnlyRootFilesystem).To(BeTrue())
		Expect(*sc.AllowPrivilegeEscalation).To(BeFalse())
		Expect(sc.Capabilities.Drop).To(Equal([]corev1.Capability{"ALL"}))
		Expect(sc.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
		Expect(pod.Volumes).To(ConsistOf(HaveField("Name", "tmp")))

		By("granting components, status, finalizers and events, and no wildcard")
		var role rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator", &role)
		Expect(role.Rules).To(ContainElements(
			rule("wavekit.dev", "components", "get", "list", "watch", "create", "update", "patch", "delete"),
			rule("wavekit.dev", "components/status", "get", "update", "patch"),
			rule("wavekit.dev", "components/finalizers", "update"),
			rule("wavekit.dev", "componentsets", "get", "list", "watch", "update", "patch"),
			rule("wavekit.dev", "componentsets/status", "get", "update", "patch"),
			rule("wavekit.dev", "componentsets/finalizers", "update"),
			rule("cluster.x-k8s.io", "clusters", "get", "list", "watch"),
			HaveField("Resources", []string{"events"}),
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "watch"}},
			HaveField("APIGroups", []string{"source.toolkit.fluxcd.io"}),
			rule("", "secrets", "get", "create", "update"),
			rule("", "secrets", "create", "update"),
			rbacv1.PolicyRule{APIGroups: []string{"wavekit.dev"}, Resources: []string{"alerts", "providers"}, Verbs: []string{"get", "list", "watch"}},
			rule("", "secrets", "get"),
		))
		Expect(wildcards(role.Rules)).To(BeEmpty())
		noReads := render("wavekit", "wavekit-system", append(oneSource, "--set", "rbac.readSources=false", "--set", "rbac.keepRenders=false",
			"--set", "alerts.enabled=false")...)
		find(noReads, "ClusterRole", "", "wavekit-component-operator", &role)
		Expect(role.Rules).NotTo(ContainElement(HaveField("APIGroups", []string{"source.toolkit.fluxcd.io"})))
		Expect(role.Rules).NotTo(ContainElement(HaveField("Resources", ContainElement("secrets"))), "no Secret is read or written")
		var noReadsDeployment appsv1.Deployment
		find(noReads, "Deployment", "wavekit-system", "wavekit-component-operator", &noReadsDeployment)
		Expect(noReadsDeployment.Spec.Template.Spec.Containers[0].Args).To(ContainElement("--component-sets=false"),
			"ComponentSets read the metadata of cluster Secrets")
		Expect(noReadsDeployment.Spec.Template.Spec.Containers[0].Args).To(ContainElement("--alerts=false"),
			"alerts get their Providers' Secrets")
		Expect(role.Rules).NotTo(ContainElement(HaveField("Resources", ContainElement("providers"))))
		var binding rbacv1.ClusterRoleBinding
		find(objects, "ClusterRoleBinding", "", "wavekit-component-operator", &binding)
		Expect(binding.RoleRef.Name).To(Equal("wavekit-component-operator"))
		Expect(binding.Subjects).To(ConsistOf(rbacv1.Subject{
			Kind: "ServiceAccount", Name: "wavekit-component-operator", Namespace: "wavekit-system",
		}))

		By("keeping the key of kept renders in one Secret of the release namespace, the one --render-key-secret names")
		var keyRole rbacv1.Role
		find(objects, "Role", "wavekit-system", "wavekit-component-operator-render-key", &keyRole)
		Expect(keyRole.Rules).To(ConsistOf(
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"wavekit-component-operator-render-key"},
				Verbs: []string{"get", "list", "watch", "update"}},
			rule("", "secrets", "create"),
		))
		var keyBinding rbacv1.RoleBinding
		find(objects, "RoleBinding", "wavekit-system", "wavekit-component-operator-render-key", &keyBinding)
		Expect(keyBinding.RoleRef.Name).To(Equal(keyRole.Name))
		Expect(keyBinding.Subjects).To(Equal(binding.Subjects))
		Expect(ids(noReads)).NotTo(ContainElement(ContainSubstring("render-key")), "no render is kept, so no key")

		By("reading CRDs and managing the namespaces objects need, cluster-wide, as the operator itself needs")
		var own rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator-crds-namespaces", &own)
		Expect(own.Rules).To(ConsistOf(
			rule("apiextensions.k8s.io", "customresourcedefinitions", "get", "list", "watch"),
			rule("", "namespaces", "get", "list", "watch", "create", "update", "patch"),
		))
		var ownBinding rbacv1.ClusterRoleBinding
		find(objects, "ClusterRoleBinding", "", "wavekit-component-operator-crds-namespaces", &ownBinding)
		Expect(ownBinding.Subjects).To(Equal(binding.Subjects))

		By("serving metrics over HTTPS, checking tokens and access with the API server")
		var service corev1.Service
		find(objects, "Service", "wavekit-system", "wavekit-component-operator-metrics", &service)
		Expect(service.Spec.Ports).To(ConsistOf(And(HaveField("Port", BeEquivalentTo(8443)), HaveField("AppProtocol", HaveValue(Equal("https"))))))
		var auth rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator-metrics-auth", &auth)
		Expect(auth.Rules).To(ConsistOf(
			rule("authentication.k8s.io", "tokenreviews", "create"),
			rule("authorization.k8s.io", "subjectaccessreviews", "create"),
		))
		var authBinding rbacv1.ClusterRoleBinding
		find(objects, "ClusterRoleBinding", "", "wavekit-component-operator-metrics-auth", &authBinding)
		Expect(authBinding.RoleRef.Name).To(Equal("wavekit-component-operator-metrics-auth"))
		Expect(authBinding.Subjects).To(Equal(binding.Subjects))
		var reader rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator-metrics-reader", &reader)
		Expect(reader.Rules).To(ConsistOf(rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}))
	})

	It("grants everything only when rbac.manageEverything is set", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource, "--set", "rbac.manageEverything=true")...)
		var role rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator", &role)
		Expect(wildcards(role.Rules)).To(ConsistOf(rbacv1.PolicyRule{
			APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"},
		}))
	})
})

var _ = Describe("helm template with non-default values", func() {
	var objects []*unstructured.Unstructured
	BeforeEach(func() { objects = render("ops", "team-ops", "-f", customValues) })

	It("renders what the values say", func() {
		Expect(ids(objects)).To(ConsistOf(
			"CustomResourceDefinition /components.wavekit.dev",
			"CustomResourceDefinition /componentsets.wavekit.dev",
			"CustomResourceDefinition /componentworks.wavekit.dev",
			"CustomResourceDefinition /alerts.wavekit.dev",
			"CustomResourceDefinition /providers.wavekit.dev",
			"CustomResourceDefinition /receivers.wavekit.dev",
			"CustomResourceDefinition /componentdefinitions.wavekit.dev",
			"CustomResourceDefinition /componentdefinitionrevisions.wavekit.dev",
			"ServiceAccount team-ops/ops-component-operator",
			"Role team-a/ops-component-operator",
			"RoleBinding team-a/ops-component-operator",
			"Role team-b/ops-component-operator",
			"RoleBinding team-b/ops-component-operator",
			"ClusterRole /ops-component-operator-crds-namespaces",
			"ClusterRoleBinding /ops-component-operator-crds-namespaces",
			"ClusterRole /ops-component-operator-cluster",
			"ClusterRoleBinding /ops-component-operator-cluster",
			"Role ops-leases/ops-component-operator-leader-election",
			"RoleBinding ops-leases/ops-component-operator-leader-election",
			"ClusterRole /ops-component-operator-metrics-auth",
			"ClusterRoleBinding /ops-component-operator-metrics-auth",
			"ClusterRole /ops-component-operator-metrics-reader",
			"ClusterRoleBinding /ops-component-operator-metrics-reader",
			"Role team-a/ops-component-operator-impersonate",
			"RoleBinding team-a/ops-component-operator-impersonate",
			"Role team-b/ops-component-operator-impersonate",
			"RoleBinding team-b/ops-component-operator-impersonate",
			"Role team-ops/ops-component-operator-render-key",
			"RoleBinding team-ops/ops-component-operator-render-key",
			"Service team-ops/ops-component-operator-metrics",
			"Deployment team-ops/ops-component-operator",
			"ServiceMonitor team-ops/ops-component-operator",
			"PodDisruptionBudget team-ops/ops-component-operator",
		))

		var own rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "ops-component-operator-crds-namespaces", &own)
		Expect(own.Rules).To(ConsistOf(
			rule("apiextensions.k8s.io", "customresourcedefinitions", "get", "list", "watch"),
			rule("", "namespaces", "get", "list", "watch"),
		), "rbac.createNamespaces: false leaves namespaces read-only")

		var deployment appsv1.Deployment
		find(objects, "Deployment", "team-ops", "ops-component-operator", &deployment)
		Expect(*deployment.Spec.Replicas).To(BeEquivalentTo(2))
		pod := deployment.Spec.Template.Spec
		operator := pod.Containers[0]
		Expect(operator.Args).To(Equal([]string{
			"--operator-name=ops.example.com",
			"--render-key-secret=team-ops/ops-component-operator-render-key",
			"--source=redis=/sources/redis",
			"--source=web=/sources/web",
			"--source=baked=/opt/sources/baked",
			"--concurrent=8",
			"--watch-namespaces=team-a,team-b",
			"--leader-elect",
			"--leader-election-namespace=ops-leases",
			"--default-service-account=deployer",
			"--insecure-kubeconfig-exec",
			"--no-cross-namespace-refs",
			"--metrics-bind-address=:8443",
			"--metrics-secure=true",
			"--metrics-cert-dir=/metrics-certs",
			"--health-probe-bind-address=:8081",
			"--zap-log-level=debug",
			"--zap-devel",
			"--alert-dedup-interval=10m",
			"--alert-burst=3",
			"--alert-refill=1m",
			"--alert-attempts=8",
			"--alert-wave-held-after=15m",
		}))
		Expect(operator.Resources.Requests.Cpu().String()).To(Equal("50m"))
		Expect(operator.Resources.Limits.Memory().String()).To(Equal("512Mi"), "defaults merge with overrides")

		By("mounting the ConfigMap sources at /sources/<name>, and nothing for the baked one")
		Expect(pod.Volumes).To(ConsistOf(
			HaveField("Name", "tmp"),
			corev1.Volume{Name: "metrics-certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "metrics-tls"}}},
			corev1.Volume{Name: "source-redis", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "redis-chart"},
				Items: []corev1.KeyToPath{
					{Key: "Chart.yaml", Path: "Chart.yaml"},
					{Key: "templates-statefulset.yaml", Path: "templates/statefulset.yaml"},
				},
			}}},
			corev1.Volume{Name: "source-web", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "web-kustomization"},
			}}},
		))
		Expect(operator.VolumeMounts).To(ConsistOf(
			corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"},
			corev1.VolumeMount{Name: "metrics-certs", MountPath: "/metrics-certs", ReadOnly: true},
			corev1.VolumeMount{Name: "source-redis", MountPath: "/sources/redis", ReadOnly: true},
			corev1.VolumeMount{Name: "source-web", MountPath: "/sources/web", ReadOnly: true},
		))

		By("granting the operator and extraRules in each watched namespace only")
		for _, ns := range []string{"team-a", "team-b"} {
			var role rbacv1.Role
			find(objects, "Role", ns, "ops-component-operator", &role)
			Expect(role.Rules).To(ContainElements(
				rule("wavekit.dev", "components", "get", "list", "watch", "create", "update", "patch", "delete"),
				rbacv1.PolicyRule{
					APIGroups: []string{"apps"},
					Resources: []string{"deployments", "statefulsets"},
					Verbs:     []string{"get", "list", "watch", "create", "update", "patch", "delete"},
				},
			))
			Expect(wildcards(role.Rules)).To(BeEmpty())
			var binding rbacv1.RoleBinding
			find(objects, "RoleBinding", ns, "ops-component-operator", &binding)
			Expect(binding.RoleRef).To(Equal(rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "ops-component-operator"}))
			Expect(binding.Subjects).To(ConsistOf(HaveField("Namespace", "team-ops")))
		}
		for _, ns := range []string{"team-a", "team-b"} {
			var impersonate rbacv1.Role
			find(objects, "Role", ns, "ops-component-operator-impersonate", &impersonate)
			Expect(impersonate.Rules).To(ConsistOf(rule("", "serviceaccounts", "impersonate")))
		}
		var clusterRole rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "ops-component-operator-cluster", &clusterRole)
		Expect(clusterRole.Rules).To(ConsistOf(rule("apiextensions.k8s.io", "customresourcedefinitions", "create", "update", "patch", "delete")))
		var election rbacv1.Role
		find(objects, "Role", "ops-leases", "ops-component-operator-leader-election", &election)
		Expect(election.Rules).To(ContainElement(rule("coordination.k8s.io", "leases", "get", "list", "watch", "create", "update", "patch", "delete")))

		By("monitoring and protecting the pods")
		monitor := object(objects, "ServiceMonitor", "team-ops", "ops-component-operator")
		Expect(monitor.GetLabels()).To(HaveKeyWithValue("release", "prometheus"))
		endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
		Expect(endpoints).To(ConsistOf(map[string]any{
			"port": "metrics", "path": "/metrics", "interval": "30s", "scheme": "https",
			"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
			"tlsConfig":       map[string]any{"insecureSkipVerify": true},
		}))
		var readers rbacv1.ClusterRoleBinding
		find(objects, "ClusterRoleBinding", "", "ops-component-operator-metrics-reader", &readers)
		Expect(readers.RoleRef.Name).To(Equal("ops-component-operator-metrics-reader"))
		Expect(readers.Subjects).To(ConsistOf(
			rbacv1.Subject{Kind: "ServiceAccount", Name: "prometheus", Namespace: "monitoring"},
			rbacv1.Subject{Kind: "Group", Name: "sre", APIGroup: rbacv1.GroupName},
		))
		var pdb policyv1.PodDisruptionBudget
		find(objects, "PodDisruptionBudget", "team-ops", "ops-component-operator", &pdb)
		Expect(*pdb.Spec.MinAvailable).To(Equal(intstr.FromInt32(1)))
		Expect(pdb.Spec.Selector.MatchLabels).To(Equal(deployment.Spec.Selector.MatchLabels))
	})
})

var _ = Describe("helm template with the lockdown", func() {
	It("renders the flags and lets the operator impersonate ServiceAccounts cluster-wide", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource, "--set", "defaultServiceAccount=deployer", "--set", "noCrossNamespaceRefs=true")...)
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		args := deployment.Spec.Template.Spec.Containers[0].Args
		Expect(args).To(ContainElements("--default-service-account=deployer", "--no-cross-namespace-refs"))
		Expect(args).NotTo(ContainElement("--insecure-kubeconfig-exec"))
		var impersonate rbacv1.ClusterRole
		find(objects, "ClusterRole", "", "wavekit-component-operator-impersonate", &impersonate)
		Expect(impersonate.Rules).To(ConsistOf(rule("", "serviceaccounts", "impersonate")))
		var binding rbacv1.ClusterRoleBinding
		find(objects, "ClusterRoleBinding", "", "wavekit-component-operator-impersonate", &binding)
		Expect(binding.Subjects).To(ConsistOf(HaveField("Name", "wavekit-component-operator")))
	})
})

var _ = Describe("helm template with metrics.secure=false", func() {
	It("serves plain HTTP and grants no token or access reviews", func() {
		objects := render("wavekit", "wavekit-system", append(oneSource, "--set", "metrics.secure=false", "--set", "metrics.serviceMonitor.enabled=true",
			"--set", "metrics.certSecret=ignored", "--set", "metrics.readers[0].kind=Group,metrics.readers[0].name=sre")...)
		Expect(ids(objects)).NotTo(ContainElement(ContainSubstring("metrics-")), "no metrics RBAC")
		var deployment appsv1.Deployment
		find(objects, "Deployment", "wavekit-system", "wavekit-component-operator", &deployment)
		operator := deployment.Spec.Template.Spec.Containers[0]
		Expect(operator.Args).To(ContainElement("--metrics-secure=false"))
		Expect(operator.Args).NotTo(ContainElement(HavePrefix("--metrics-cert-dir")))
		Expect(deployment.Spec.Template.Spec.Volumes).To(ConsistOf(HaveField("Name", "tmp")))
		var service corev1.Service
		find(objects, "Service", "wavekit-system", "wavekit-component-operator-metrics", &service)
		Expect(service.Spec.Ports).To(ConsistOf(HaveField("AppProtocol", HaveValue(Equal("http")))))
		monitor := object(objects, "ServiceMonitor", "wavekit-system", "wavekit-component-operator")
		endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
		Expect(endpoints).To(ConsistOf(map[string]any{"port": "metrics", "path": "/metrics", "scheme": "http"}))
	})
})

var _ = Describe("applying the rendered chart", Ordered, func() {
	var env *testcluster.Env
	ctx := context.Background()

	BeforeAll(func() {
		var err error
		env, err = testcluster.Start(testcluster.Options{ExtraCRDDirs: []string{filepath.Join(root, "test", "chart", "testdata", "crds")}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
		for _, ns := range []string{"wavekit-system", "team-ops", "team-a", "team-b", "ops-leases"} {
			Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		}
	})

	// apply creates or updates every object with server-side apply, CRDs first (each one
	// established before anything else goes in), and reads each one back.
	apply := func(objects []*unstructured.Unstructured) {
		GinkgoHelper()
		isCRD := func(u *unstructured.Unstructured) bool { return u.GetKind() == "CustomResourceDefinition" }
		for _, crds := range []bool{true, false} {
			for _, u := range objects {
				if isCRD(u) != crds {
					continue
				}
				Expect(env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()),
					client.FieldOwner("chart-test"), client.ForceOwnership)).To(Succeed(),
					"applying %s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
				if crds {
					Eventually(func(g Gomega) {
						var crd apiextensionsv1.CustomResourceDefinition
						g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(u), &crd)).To(Succeed())
						g.Expect(crd.Status.Conditions).To(ContainElement(And(
							HaveField("Type", apiextensionsv1.Established),
							HaveField("Status", apiextensionsv1.ConditionTrue))))
					}).WithTimeout(30 * time.Second).Should(Succeed())
				}
			}
		}
		for _, u := range objects {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(u.GroupVersionKind())
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(u), got)).To(Succeed())
			Expect(got.GetLabels()).To(Equal(u.GetLabels()))
		}
	}

	It("applies the default render", func() {
		apply(render("wavekit", "wavekit-system", oneSource...))
	})

	It("applies the render of the quick start's values", func() {
		apply(render("examples", "team-a", "-f", examplesValues))
	})

	It("applies the non-default render", func() {
		apply(render("ops", "team-ops", "-f", customValues))
		var monitor unstructured.Unstructured
		monitor.SetAPIVersion("monitoring.coreos.com/v1")
		monitor.SetKind("ServiceMonitor")
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "team-ops", Name: "ops-component-operator"}, &monitor)).To(Succeed())
	})
})

// rule matches a policy rule on one resource of one API group with exactly these verbs.
func rule(group, resource string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
}

// wildcards returns the rules with a "*" verb.
func wildcards(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var found []rbacv1.PolicyRule
	for _, r := range rules {
		if slices.Contains(r.Verbs, "*") {
			found = append(found, r)
		}
	}
	return found
}

// readDir returns the files of dir by name.
func readDir(dir string) map[string]string {
	GinkgoHelper()
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		files[e.Name()] = string(data)
	}
	return files
}

// appVersion is the chart's appVersion, the default image tag.
func appVersion() string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	Expect(yaml.Unmarshal(data, &chart)).To(Succeed())
	return chart.AppVersion
}
