package definitions_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

const definitionName = "databases." + group

// databases defines kind Database from the chart: health checks that
// judge the chart's ConfigMap, and a rollout in three waves of two.
func databases() *v1alpha1.ComponentDefinition {
	two := intstr.FromInt32(2)
	return &v1alpha1.ComponentDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: definitionName},
		Spec: v1alpha1.ComponentDefinitionSpec{
			Group:          group,
			Names:          v1alpha1.DefinitionNames{Kind: "Database", Plural: "databases", ShortNames: []string{"db"}},
			PrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Tier", Type: "string", JSONPath: ".spec.tier"}},
			Source:         v1alpha1.DefinitionSource{Chart: &v1alpha1.ChartSource{Repository: repo.URL, Name: "database", Version: ">=1.0.0"}},
			Instances: v1alpha1.InstanceSettings{HealthChecks: []manifests.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap",
				Failed: "has(self.data.healthy) && self.data.healthy == 'false'", Current: "true"}}},
			Rollout: v1alpha1.DefinitionRollout{Waves: []v1alpha1.RolloutWave{{Name: "canary", Count: &two}, {Count: &two}}},
		},
	}
}

var _ = Describe("a chart becomes a Kubernetes API", Ordered, func() {
	var ns string

	BeforeAll(func() {
		Eventually(operator.Err).WithTimeout(60 * time.Second).Should(gbytes.Say(`Starting workers.*componentdefinition`))
		ns = newNamespace("db")
	})

	It("serves the chart's kind within 5 s, and kubectl explain shows its fields", func() {
		start := time.Now()
		Expect(env.Client.Create(ctx, databases())).To(Succeed())
		Eventually(func() string {
			out, _ := runKubectl("explain", "databases.spec.storage")
			return out
		}).WithTimeout(5 * time.Second).WithPolling(100 * time.Millisecond).Should(And(
			ContainSubstring("Where the data lives."), ContainSubstring("size"), ContainSubstring("The volume's size, in Gi.")))
		GinkgoWriter.Printf("definition to served kind: %s\n", time.Since(start))
		Eventually(definitionStatus(definitionName)).WithTimeout(10 * time.Second).Should(HavePrefix("True/Served: " + group + "/v1alpha1 Database is served at revision 1"))
		def := getDefinition(definitionName)
		Expect(def.Status.Revision).To(Equal(int64(1)))
		Expect(def.Status.Revisions).To(HaveLen(1))
		Expect(def.Status.Revisions[0].Source).To(ContainSubstring("1.0.0"))

		out, err := runKubectl("explain", "databases.spec.tier")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(And(ContainSubstring("How big the database is."), MatchRegexp(`ENUM:\s+small\s+large`)))

		rev := &v1alpha1.ComponentDefinitionRevision{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: definitionName + "-1"}, rev)).To(Succeed())
		Expect(rev.Spec.Source.Chart.Version).To(Equal("1.0.0"), "the revision pins the version the constraint resolved to")
		Expect(rev.Spec.Resolved.Digest).To(HavePrefix("sha256:"))
		rev.Spec.Revision = 7
		Expect(env.Client.Update(ctx, rev)).To(MatchError(ContainSubstring("immutable")))
	})

	It("refuses an invalid instance at create, with the schema's message", func() {
		err := env.Client.Create(ctx, database(ns, "huge", map[string]any{"tier": "huge", "storage": map[string]any{"size": "1Gi"}}))
		Expect(err).To(MatchError(ContainSubstring(`spec.tier: Unsupported value: "huge": supported values: "small", "large"`)))
		err = env.Client.Create(ctx, database(ns, "nosize", map[string]any{"storage": map[string]any{}}))
		Expect(err).To(MatchError(ContainSubstring("spec.storage.size: Required value")))
		err = env.Client.Create(ctx, database(ns, "badsize", map[string]any{"storage": map[string]any{"size": "1TB"}}))
		Expect(err).To(MatchError(ContainSubstring("spec.storage.size in body should match '^[0-9]+Gi$'")))
	})

	It("installs a valid instance wave by wave until kubectl wait sees it Ready, and deletes it cleanly", func() {
		db := database(ns, "orders", map[string]any{"storage": map[string]any{"size": "5Gi"}})
		Expect(env.Client.Create(ctx, db)).To(Succeed())
		out, err := runKubectl("wait", "--for=condition=Ready", "-n", ns, "database/orders", "--timeout=90s")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(readyOf(db)()).To(Equal("True/Ready revision 1"))

		u, err := read(db)
		Expect(err).NotTo(HaveOccurred())
		Expect(nested(u, "spec", "tier")).To(Equal("small"), "the schema's default")
		Expect(nested(u, "spec", "storage", "class")).To(Equal("standard"), "a default inside a $ref")

		var deploy appsv1.Deployment
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "orders"}, &deploy)).To(Succeed())
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "orders-config"}, &cm)).To(Succeed())
		Expect(cm.Data).To(And(HaveKeyWithValue("size", "5Gi"), HaveKeyWithValue("tier", "small"), HaveKeyWithValue("version", "1.0.0")))
		available := availableSince(&deploy)
		Expect(available).NotTo(BeZero())
		Expect(cm.CreationTimestamp.Time).NotTo(BeTemporally("<", available.Truncate(time.Second)),
			"wave 1 (the ConfigMap) starts once wave 0 (the Deployment) is available")

		out, err = runKubectl("get", "databases", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(And(ContainSubstring("READY"), ContainSubstring("REVISION"), ContainSubstring("TIER"), MatchRegexp(`orders\s+True\s+Ready\s+1\s+small`)))

		Expect(env.Client.Delete(ctx, db)).To(Succeed())
		Eventually(readyOf(db)).WithTimeout(60 * time.Second).Should(Equal("gone"))
		Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(&deploy), &deploy))).To(BeTrue())
		Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(&cm), &cm))).To(BeTrue())
	})

	It("refuses a kind that clashes with a CRD it did not write, and changes nothing", func() {
		foreign := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "caches." + group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Cache", ListKind: "CacheList", Plural: "caches", Singular: "cache"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}}},
		}
		Expect(env.Client.Create(ctx, foreign)).To(Succeed())
		Eventually(func() bool {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(foreign), foreign)).To(Succeed())
			return crdEstablished(foreign)
		}).WithTimeout(10 * time.Second).Should(BeTrue())
		def := databases()
		def.Name, def.Spec.Names = "caches."+group, v1alpha1.DefinitionNames{Kind: "Cache", Plural: "caches"}
		Expect(env.Client.Create(ctx, def)).To(Succeed())
		Eventually(definitionStatus(def.Name)).WithTimeout(30 * time.Second).Should(And(HavePrefix("False/KindClash:"),
			ContainSubstring("the CRD caches."+group+" exists and the operator did not write it")))
		after := &apiextensionsv1.CustomResourceDefinition{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(foreign), after)).To(Succeed())
		Expect(after.ResourceVersion).To(Equal(foreign.ResourceVersion), "the foreign CRD is left as it was")
		var revisions v1alpha1.ComponentDefinitionRevisionList
		Expect(env.Client.List(ctx, &revisions, client.MatchingLabels{"wavekit.dev/definition": def.Name})).To(Succeed())
		Expect(revisions.Items).To(BeEmpty(), "no revision of a refused kind")
		Expect(env.Client.Delete(ctx, def)).To(Succeed())
		Eventually(definitionStatus(def.Name)).WithTimeout(30 * time.Second).Should(Equal("gone"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(foreign), after)).To(Succeed(), "deleting the definition leaves the CRD it did not write")
	})

	It("answers bad input clearly and changes nothing", func() {
		cases := map[string]func(*v1alpha1.ComponentDefinition){
			"False/Invalid: spec.group other.org is not one the operator may serve": func(d *v1alpha1.ComponentDefinition) {
				d.Name, d.Spec.Group, d.Spec.Names = "things.other.org", "other.org", v1alpha1.DefinitionNames{Kind: "Thing", Plural: "things"}
			},
			"False/SourceRefused: the source: spec.chart": func(d *v1alpha1.ComponentDefinition) {
				d.Name, d.Spec.Names = "ghosts."+group, v1alpha1.DefinitionNames{Kind: "Ghost", Plural: "ghosts"}
				d.Spec.Source.Chart.Name = "no-such-chart"
			},
			"False/Invalid: spec.values.fields[0].from: the schema of the spec has no field storage.sise": func(d *v1alpha1.ComponentDefinition) {
				d.Name, d.Spec.Names = "typos."+group, v1alpha1.DefinitionNames{Kind: "Typo", Plural: "typos"}
				d.Spec.Values = &v1alpha1.ValuesMapping{Fields: []v1alpha1.FieldMapping{{From: "storage.sise"}}}
			},
			"False/InvalidSchema: spec.schema.jsonSchema cannot be the schema of a kind: spec.size (#/properties/size/$ref): $ref other.json#/size": func(d *v1alpha1.ComponentDefinition) {
				d.Name, d.Spec.Names = "remotes."+group, v1alpha1.DefinitionNames{Kind: "Remote", Plural: "remotes"}
				d.Spec.Schema = &v1alpha1.DefinitionSchema{JSONSchema: &apiextensionsv1.JSON{Raw: []byte(`{"properties": {"size": {"$ref": "other.json#/size"}}}`)}}
			},
		}
		for says, change := range cases {
			def := databases()
			change(def)
			Expect(env.Client.Create(ctx, def)).To(Succeed())
			Eventually(definitionStatus(def.Name)).WithTimeout(30*time.Second).Should(HavePrefix(says), def.Name)
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Name: def.Name}, crd))).To(BeTrue(), "no CRD for %s", def.Name)
			Expect(env.Client.Delete(ctx, def)).To(Succeed())
			Eventually(definitionStatus(def.Name)).WithTimeout(30 * time.Second).Should(Equal("gone"))
		}
	})
})

// availableSince is when a Deployment became Available.
func availableSince(d *appsv1.Deployment) time.Time {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
