package definitions_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
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
		Expect(cm.Labels).To(HaveKeyWithValue("wavekit.dev/instance-of", definitionName),
			"what an instance applies is labelled with its definition, for users to select it by")
		available := availableSince(&deploy)
		Expect(available).NotTo(BeZero())
		Expect(cm.CreationTimestamp.Time).NotTo(BeTemporally("<", available.Truncate(time.Second)),
			"wave 1 (the ConfigMap) starts once wave 0 (the Deployment) is available")

		out, err = runKubectl("get", "databases", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(And(ContainSubstring("READY"), ContainSubstring("REVISION"), ContainSubstring("TIER"), MatchRegexp(`orders\s+True\s+Ready\s+1\s+small`)))

		r := clitest.WavekitWith(kubeconfig, "get", "--kind", "databases."+group, "-n", ns)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(MatchRegexp(`(?m)^orders +True +Ready +\S+ +every object is applied and ready`))
		r = clitest.WavekitWith(kubeconfig, "tree", "--kind", "database", ns+"/orders")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(MatchRegexp(`^Database ` + ns + `/orders: Ready \(every object is applied and ready\)\n` +
			`WAVE +OBJECT +PHASE +LIVE\n` +
			`0 +apps/Deployment ` + ns + `/orders +Ready +Current\n` +
			`1 +ConfigMap ` + ns + `/orders-config +Ready +Current\n$`))
		r = clitest.WavekitWith(kubeconfig, "tree", "--kind", "widgets."+group, ns+"/orders")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(HavePrefix("error: --kind widgets." + group + ": the cluster serves no such kind"))

		before, err := read(db)
		Expect(err).NotTo(HaveOccurred())
		r = clitest.WavekitWith(kubeconfig, "reconcile", "--kind", "widgets."+group, ns+"/orders", "--wait")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(HavePrefix("error: --kind widgets." + group + ": the cluster serves no such kind"))
		u, err = read(db)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.GetResourceVersion()).To(Equal(before.GetResourceVersion()), "a reconcile of an unknown kind changes nothing")
		r = clitest.WavekitWith(kubeconfig, "reconcile", "--kind", "configmaps", ns+"/orders-config")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: --kind configmaps: ConfigMap is not a kind a ComponentDefinition defines (there is no ComponentDefinition configmaps)\n"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(&cm), &cm)).To(Succeed())
		Expect(cm.Annotations).NotTo(HaveKey("wavekit.dev/reconcile-requested-at"), "a kind no definition defines is not written")

		r = clitest.WavekitWith(kubeconfig, "reconcile", "--kind", "databases", ns+"/orders", "--wait", "--timeout", "90s")
		Expect(r.Code).To(Equal(0), r.Stderr)
		requested := regexp.MustCompile(`^Database ` + ns + `/orders: reconcile requested at (\S+)\n`).FindStringSubmatch(r.Stdout)
		Expect(requested).To(HaveLen(2), r.Stdout)
		Expect(r.Stdout).To(HaveSuffix("Database " + ns + "/orders is Ready: every object is applied and ready\n"))
		u, err = read(db)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.GetAnnotations()).To(HaveKeyWithValue("wavekit.dev/reconcile-requested-at", requested[1]), "the request is written on the instance")
		Expect(nested(u, "status", "lastHandledReconcileAt")).To(Equal(requested[1]), "--wait returned once the operator handled it")

		Expect(env.Client.Delete(ctx, db)).To(Succeed())
		Eventually(readyOf(db)).WithTimeout(60 * time.Second).Should(Equal("gone"))
		Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(&deploy), &deploy))).To(BeTrue())
		Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(&cm), &cm))).To(BeTrue())
	})

	It("suspends and resumes an instance with --kind, and previews its next pass as its own", func() {
		ns := newNamespace("suspend")
		db := database(ns, "billing", map[string]any{"storage": map[string]any{"size": "5Gi"}})
		Expect(env.Client.Create(ctx, db)).To(Succeed())
		Eventually(readyOf(db)).WithTimeout(90 * time.Second).Should(Equal("True/Ready revision 1"))
		config := func() string {
			var cm corev1.ConfigMap
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "billing-config"}, &cm); err != nil {
				return err.Error()
			}
			return cm.Data["size"]
		}

		r := clitest.WavekitWith(kubeconfig, "suspend", "--kind", "databases", ns+"/billing")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(Equal("Database " + ns + "/billing suspended\n"))
		u, err := read(db)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.GetAnnotations()).To(HaveKeyWithValue("wavekit.dev/suspend", "true"))
		Eventually(readyOf(db)).WithTimeout(30*time.Second).Should(HaveSuffix("/Suspended revision 1"), "the status says so at once")

		By("the page shows it suspended, as a Component, with a resume button for who may resume")
		operatorToken := instanceToken("instance-operator", "get", "list", "watch", "reconcile", "suspend", "resume")
		instancePage := page + "/c/database." + group + "/" + ns + "/billing"
		Eventually(func() string { body, _ := pageOf(instancePage, operatorToken); return body }).WithTimeout(30 * time.Second).Should(
			And(ContainSubstring(`<span class="tag">suspended</span>`), ContainSubstring(`data-action="resume"`)))

		Expect(env.Client.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"storage":{"size":"7Gi"}}}`)))).To(Succeed())
		Eventually(func() int64 {
			got, _ := read(db)
			observed, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration")
			return observed
		}).WithTimeout(30*time.Second).Should(Equal(u.GetGeneration()), "the pass of the new spec ran")
		Expect(readyOf(db)()).To(HaveSuffix("/Suspended revision 1"))
		Expect(config()).To(Equal("5Gi"), "a suspended instance applies nothing")

		By("diff component --kind: the instance's own next pass")
		r = clitest.WavekitWith(kubeconfig, "diff", "component", "--kind", "databases", ns+"/billing")
		Expect(r.Code).To(Equal(1), r.Stderr)
		Expect(r.Stdout).To(And(ContainSubstring("ConfigMap "+ns+"/billing-config"), ContainSubstring("-  size: 5Gi"), ContainSubstring("+  size: 7Gi")))
		Expect(r.Stdout).To(ContainSubstring("Summary: 0 to create, 1 to update, 0 to delete, 1 unchanged"),
			"rendered as the instance, with its kind's labels and owner, the Deployment is unchanged")
		r = clitest.WavekitWith(kubeconfig, "diff", "component", "--kind", "databases", "-f", "x.yaml")
		Expect(r.Code).To(Equal(2))
		Expect(r.Stderr).To(ContainSubstring("--kind previews an instance in the cluster"))

		r = clitest.WavekitWith(kubeconfig, "resume", "--kind", "db", ns+"/billing")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(HavePrefix("Database " + ns + "/billing resumed; reconcile requested at "))
		Eventually(config).WithTimeout(60 * time.Second).Should(Equal("7Gi"))
		Eventually(readyOf(db)).WithTimeout(60 * time.Second).Should(Equal("True/Ready revision 1"))
		u, err = read(db)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.GetAnnotations()).NotTo(HaveKey("wavekit.dev/suspend"))
		r = clitest.WavekitWith(kubeconfig, "diff", "component", "--kind", "databases", ns+"/billing")
		Expect(r.Code).To(Equal(0), r.Stdout+r.Stderr)

		By("suspended from the page")
		_, csrf := pageOf(instancePage, operatorToken)
		Expect(postAction(page+"/act/database."+group+"/"+ns+"/billing/suspend", operatorToken, csrf)).To(Equal(http.StatusSeeOther))
		u, err = read(db)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.GetAnnotations()).To(HaveKeyWithValue("wavekit.dev/suspend", "true"))
		Eventually(readyOf(db)).WithTimeout(30 * time.Second).Should(HaveSuffix("/Suspended revision 1"))

		Expect(env.Client.Delete(ctx, db)).To(Succeed())
		Eventually(readyOf(db)).WithTimeout(60 * time.Second).Should(Equal("gone"))
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

	It("lets a tenant with edit on the kind in one namespace do that, and nothing else", func() {
		teamA, teamB := newNamespace("team-a"), newNamespace("team-b")
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "databases-edit"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "wavekit.dev:definition:" + definitionName + ":edit"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: teamA, Name: "tenant"}},
		})).To(Succeed())
		cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, teamA, "tenant")
		Expect(err).NotTo(HaveOccurred())
		tenant, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		mine := database(teamA, "mine", map[string]any{"storage": map[string]any{"size": "1Gi"}})
		Expect(tenant.Create(ctx, mine)).To(Succeed())
		Eventually(readyOf(mine)).WithTimeout(90 * time.Second).Should(Equal("True/Ready revision 1"))
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(databaseKind.GroupVersion().WithKind("DatabaseList"))
		Expect(tenant.List(ctx, list, client.InNamespace(teamA))).To(Succeed())
		Expect(list.Items).To(HaveLen(1))

		forbidden := func(err error) { GinkgoHelper(); Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err) }
		forbidden(tenant.Create(ctx, database(teamB, "theirs", map[string]any{"storage": map[string]any{"size": "1Gi"}})))
		forbidden(tenant.List(ctx, list, client.InNamespace(teamB)))
		forbidden(tenant.Create(ctx, &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "c"}, Spec: v1alpha1.ComponentSpec{Source: "x"}}))
		forbidden(tenant.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "cm"}}))
		forbidden(tenant.List(ctx, &corev1.SecretList{}, client.InNamespace(teamA)))
		forbidden(tenant.Create(ctx, &v1alpha1.ComponentDefinition{ObjectMeta: metav1.ObjectMeta{Name: "xs." + group},
			Spec: v1alpha1.ComponentDefinitionSpec{Group: group, Names: v1alpha1.DefinitionNames{Kind: "X", Plural: "xs"}, Source: v1alpha1.DefinitionSource{Source: "x"}}}))
		u, err := read(mine)
		Expect(err).NotTo(HaveOccurred())
		Expect(unstructured.SetNestedField(u.Object, "Ready", "status", "state")).To(Succeed())
		forbidden(tenant.Status().Update(ctx, u))
		var deploy appsv1.Deployment
		forbidden(tenant.Get(ctx, client.ObjectKey{Namespace: teamA, Name: "mine"}, &deploy))

		Eventually(func() bool {
			edit := &rbacv1.ClusterRole{}
			Expect(env.Client.Get(ctx, client.ObjectKey{Name: "edit"}, edit)).To(Succeed())
			for _, r := range edit.Rules {
				if len(r.APIGroups) == 1 && r.APIGroups[0] == group && len(r.Resources) == 1 && r.Resources[0] == "databases" {
					return true
				}
			}
			return false
		}).WithTimeout(30*time.Second).Should(BeTrue(), "Kubernetes' edit role gets the kind's rules by aggregation")

		Expect(tenant.Delete(ctx, mine)).To(Succeed())
		Eventually(readyOf(mine)).WithTimeout(60 * time.Second).Should(Equal("gone"))
	})

	It("applies an instance's objects as the service account the definition names, as a Component's", func() {
		def := databases()
		def.Name, def.Spec.Names = "queues."+group, v1alpha1.DefinitionNames{Kind: "Queue", Plural: "queues"}
		def.Spec.Instances.ServiceAccountName = "deployer"
		Expect(env.Client.Create(ctx, def)).To(Succeed())
		Eventually(definitionStatus(def.Name)).WithTimeout(30 * time.Second).Should(HavePrefix("True/Served"))
		team := newNamespace("queues")
		Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "deployer"}})).To(Succeed())
		queue := database(team, "jobs", map[string]any{"storage": map[string]any{"size": "1Gi"}})
		queue.SetKind("Queue")
		Expect(env.Client.Create(ctx, queue)).To(Succeed())
		Eventually(func() string {
			u, err := read(queue)
			if err != nil {
				return err.Error()
			}
			return condition(u, "Ready")
		}).WithTimeout(60*time.Second).Should(ContainSubstring(`"system:serviceaccount:`+team+`:deployer" cannot`),
			"the account has no right yet: the operator's own do not apply")

		Expect(env.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "deployer"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"", "apps"}, Resources: []string{"configmaps", "deployments"}, Verbs: []string{"*"}}}})).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "deployer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "deployer"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: team, Name: "deployer"}}})).To(Succeed())
		Eventually(readyOf(queue)).WithTimeout(120 * time.Second).Should(Equal("True/Ready revision 1"))

		Expect(env.Client.Delete(ctx, queue)).To(Succeed())
		Eventually(readyOf(queue)).WithTimeout(60 * time.Second).Should(Equal("gone"))
		Expect(env.Client.Delete(ctx, def)).To(Succeed())
		Eventually(definitionStatus(def.Name)).WithTimeout(30 * time.Second).Should(Equal("gone"))
	})

	Context("with six instances", Ordered, func() {
		var fleet string
		names := []string{"a", "b", "c", "d", "e", "f"}
		instance := func(name string) *unstructured.Unstructured { return database(fleet, name, nil) }

		BeforeAll(func() {
			fleet = newNamespace("fleet")
			for _, name := range names {
				Expect(env.Client.Create(ctx, database(fleet, name, map[string]any{"storage": map[string]any{"size": "1Gi"}}))).To(Succeed())
			}
			for _, name := range names {
				Eventually(readyOf(instance(name))).WithTimeout(90 * time.Second).Should(Equal("True/Ready revision 1"))
			}
		})

		It("rolls a new chart version out as revision 2 and halts after the first wave when revision 2 fails its health check", func() {
			Expect(repo.Add(databaseChart("1.1.0", false))).To(Succeed())
			requestReconcile(definitionName)
			Eventually(func() string {
				def := getDefinition(definitionName)
				if r := def.Status.Rollout; r != nil && r.Failed != nil {
					return fmt.Sprintf("revision %d %s wave %d of %d at %s", r.Revision, r.Phase, r.Wave, r.Waves, r.Failed.Instance)
				}
				return fmt.Sprintf("revision %d %+v", def.Status.Revision, def.Status.Rollout)
			}).WithTimeout(120 * time.Second).Should(MatchRegexp(`^revision 2 Halted wave 1 of 3 at ` + fleet + `/[ab]$`))
			Expect(definitionStatus(definitionName)()).To(And(HavePrefix("False/RolloutHalted:"), ContainSubstring("failed at revision 2")))
			Expect(readyOf(instance("a"))()).To(HaveSuffix("revision 2"))
			Expect(readyOf(instance("b"))()).To(HaveSuffix("revision 2"))
			for _, name := range names[2:] {
				Consistently(readyOf(instance(name))).WithTimeout(3*time.Second).Should(Equal("True/Ready revision 1"),
					"the waves after the first stay at revision 1")
			}
			// a and b both fail: the status, and the Event, name the one
			// the rollout halted at, and go on naming it.
			failed := getDefinition(definitionName).Status.Rollout.Failed.Instance
			halts := func() []string {
				var events corev1.EventList
				Expect(env.Client.List(ctx, &events)).To(Succeed())
				var out []string
				for _, e := range events.Items {
					if e.Reason == "RolloutHalted" && e.InvolvedObject.Name == definitionName {
						out = append(out, e.Message)
					}
				}
				return out
			}
			Eventually(halts).WithTimeout(30*time.Second).Should(ContainElement(ContainSubstring(failed+" failed at revision 2")),
				"the halt is an Event of the definition, naming the instance its status names")
			Expect(halts()).To(HaveEach(ContainSubstring(failed+" failed at revision 2")), "and no other")
			Expect(getDefinition(definitionName).Status.Rollout.Failed.Instance).To(Equal(failed), "the status still names it")

			r := clitest.WavekitWith(kubeconfig, "definition", "list")
			Expect(r.Code).To(Equal(0), r.Stderr)
			Expect(r.Stdout).To(MatchRegexp(`(?m)^NAME\s+KIND\s+REVISION\s+INSTANCES BY REVISION\s+ROLLOUT\s+READY\s+AGE\s+MESSAGE$`))
			Expect(r.Stdout).To(MatchRegexp(definitionName + `\s+Database\s+2\s+2:2 1:4\s+Halted 1/3 at ` + fleet + `/[ab]\s+False`))
		})

		It("lets a person granted promote pin the instance the rollout halted at from the page, and no one else", func() {
			failed := getDefinition(definitionName).Status.Rollout.Failed.Instance
			promoter := pageToken("promoter", "get", "list", "watch", "promote")
			viewer := pageToken("definition-viewer", "get", "list", "watch")
			action := page + "/act/componentdefinition.wavekit.dev/-/" + definitionName + "/promote"
			body, csrf := overview(viewer)
			Expect(body).To(ContainSubstring(`data-definition="` + definitionName + `" data-reason="RolloutHalted" data-rollout="Halted"`))
			Expect(body).NotTo(ContainSubstring(`data-action="promote"`), "no button for a viewer")
			Expect(postAction(action, viewer, csrf)).To(Equal(http.StatusForbidden), "nor the action")

			body, csrf = overview(promoter)
			Expect(body).To(ContainSubstring("Pin " + failed + " to revision 1 and go on"))
			Expect(postAction(action, promoter, "")).To(Equal(http.StatusForbidden), "no CSRF token")
			Expect(postAction(action, promoter, csrf)).To(Equal(http.StatusSeeOther))
			namespace, name, _ := strings.Cut(failed, "/")
			pinned := database(namespace, name, nil)
			u, err := read(pinned)
			Expect(err).NotTo(HaveOccurred())
			Expect(u.GetAnnotations()).To(HaveKeyWithValue("wavekit.dev/pin-revision", "1"))
			Eventually(readyOf(pinned)).WithTimeout(90*time.Second).Should(Equal("True/Ready revision 1"), "back on revision 1")
			Eventually(func() []string {
				var events corev1.EventList
				Expect(env.Client.List(ctx, &events)).To(Succeed())
				var notes []string
				for _, e := range events.Items {
					if e.Reason == "DashboardAction" && e.InvolvedObject.Name == definitionName {
						notes = append(notes, e.Message)
					}
				}
				return notes
			}).WithTimeout(30 * time.Second).Should(ContainElement("system:serviceaccount:" + operatorNamespace +
				":promoter asked for promote from the dashboard: " + failed + " pinned to revision 1"))

			// The next spec moves every instance but its own pinned one.
			Eventually(func() error {
				u, err := read(pinned)
				if err != nil {
					return err
				}
				annotations := u.GetAnnotations()
				delete(annotations, "wavekit.dev/pin-revision")
				u.SetAnnotations(annotations)
				return env.Client.Update(ctx, u)
			}).Should(Succeed())
		})

		It("moves on to a fixed revision 3, but not an instance pinned to revision 1", func() {
			pinned := instance("f")
			Eventually(func() error {
				u, err := read(pinned)
				if err != nil {
					return err
				}
				u.SetAnnotations(map[string]string{"wavekit.dev/pin-revision": "1"})
				return env.Client.Update(ctx, u)
			}).Should(Succeed())
			Expect(repo.Add(databaseChart("1.2.0", true))).To(Succeed())
			requestReconcile(definitionName)
			Eventually(definitionStatus(definitionName)).WithTimeout(180 * time.Second).Should(HavePrefix("True/Served: " + group + "/v1alpha1 Database is served at revision 3"))
			for _, name := range names[:5] {
				Expect(readyOf(instance(name))()).To(Equal("True/Ready revision 3"))
			}
			Expect(readyOf(pinned)()).To(Equal("True/Ready revision 1"))
			var cm corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: fleet, Name: "e-config"}, &cm)).To(Succeed())
			Expect(cm.Data).To(HaveKeyWithValue("version", "1.2.0"))
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: fleet, Name: "f-config"}, &cm)).To(Succeed())
			Expect(cm.Data).To(HaveKeyWithValue("version", "1.0.0"))
			def := getDefinition(definitionName)
			Expect(def.Status.Revisions).To(ContainElements(
				And(HaveField("Revision", int64(3)), HaveField("Instances", int32(5))),
				And(HaveField("Revision", int64(1)), HaveField("Instances", int32(1)))))
		})

		It("refuses a schema change that would break an existing instance, naming it", func() {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(env.Client.Get(ctx, client.ObjectKey{Name: definitionName}, crd)).To(Succeed())
			narrowed := strings.Replace(databaseSchema, `"enum": ["small", "large"]`, `"enum": ["large"]`, 1)
			updateDefinition(definitionName, func(def *v1alpha1.ComponentDefinition) {
				def.Spec.Schema = &v1alpha1.DefinitionSchema{JSONSchema: &apiextensionsv1.JSON{Raw: []byte(narrowed)}}
			})
			Eventually(definitionStatus(definitionName)).WithTimeout(30 * time.Second).Should(And(
				HavePrefix("False/SchemaBreaksInstances: revision 4 was not made: its schema would break 6 instance(s): "+fleet+"/a ("),
				ContainSubstring(`spec.tier: Unsupported value: "small"`),
				ContainSubstring("annotate the definition wavekit.dev/accept-breaking-revision=4")))
			after := &apiextensionsv1.CustomResourceDefinition{}
			Expect(env.Client.Get(ctx, client.ObjectKey{Name: definitionName}, after)).To(Succeed())
			Expect(after.ResourceVersion).To(Equal(crd.ResourceVersion), "the CRD keeps the schema the instances hold")
			Expect(getDefinition(definitionName).Status.Revision).To(Equal(int64(3)))

			updateDefinition(definitionName, func(def *v1alpha1.ComponentDefinition) { def.Spec.Schema = nil })
			Eventually(definitionStatus(definitionName)).WithTimeout(30 * time.Second).Should(HavePrefix("True/Served: " + group + "/v1alpha1 Database is served at revision 3"))
		})

		It("serves every kind again after a restart, and rewrites nothing", func() {
			before := written(fleet)
			stopOperator(operator)
			operator = startOperator()
			Eventually(operator.Err).WithTimeout(60 * time.Second).Should(gbytes.Say(`"serving".*` + definitionName))
			Consistently(func() map[string]string { return written(fleet) }).WithTimeout(5 * time.Second).Should(Equal(before))
			late := database(fleet, "late", map[string]any{"storage": map[string]any{"size": "2Gi"}})
			Expect(env.Client.Create(ctx, late)).To(Succeed())
			Eventually(readyOf(late)).WithTimeout(90 * time.Second).Should(Equal("True/Ready revision 3"))
		})

		It("keeps the definition while an instance exists, and removes the kind once none is left", func() {
			Expect(env.Client.Delete(ctx, &v1alpha1.ComponentDefinition{ObjectMeta: metav1.ObjectMeta{Name: definitionName}})).To(Succeed())
			Eventually(definitionStatus(definitionName)).WithTimeout(30 * time.Second).Should(And(
				HavePrefix("False/DeletionBlocked: 7 instance(s) of Database remain: "+fleet+"/a"), ContainSubstring(fleet+"/late")))
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(env.Client.Get(ctx, client.ObjectKey{Name: definitionName}, crd)).To(Succeed())

			out, err := runKubectl("delete", "databases", "--all", "-n", fleet, "--wait=false")
			Expect(err).NotTo(HaveOccurred(), out)
			for _, name := range append(names, "late") {
				Eventually(readyOf(instance(name))).WithTimeout(90 * time.Second).Should(Equal("gone"))
			}
			Eventually(definitionStatus(definitionName)).WithTimeout(60 * time.Second).Should(Equal("gone"))
			Eventually(func() bool {
				return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Name: definitionName}, crd))
			}).
				WithTimeout(30*time.Second).Should(BeTrue(), "the CRD goes with the definition")
			var revisions v1alpha1.ComponentDefinitionRevisionList
			Expect(env.Client.List(ctx, &revisions, client.MatchingLabels{"wavekit.dev/definition": definitionName})).To(Succeed())
			Expect(revisions.Items).To(BeEmpty())
			role := &rbacv1.ClusterRole{}
			Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Name: "wavekit.dev:definition:" + definitionName + ":edit"}, role))).To(BeTrue())
		})
	})

	It("serves the example of examples/, and installs its instance", func() {
		root := testcluster.ModuleRoot()
		out, err := runKubectl("apply", "-f", filepath.Join(root, "examples", "definition.yaml"))
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(definitionStatus("websites." + group)).WithTimeout(30 * time.Second).Should(HavePrefix("True/Served"))
		Eventually(func() error {
			_, err := runKubectl("apply", "-f", filepath.Join(root, "examples", "definition", "shop.yaml"))
			return err
		}).
			WithTimeout(10 * time.Second).Should(Succeed())
		out, err = runKubectl("wait", "--for=condition=Ready", "-n", "default", "website/shop", "--timeout=90s")
		Expect(err).NotTo(HaveOccurred(), out)
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "shop-config"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("greeting", "hello from a WebSite"))
		out, err = runKubectl("delete", "-f", filepath.Join(root, "examples", "definition", "shop.yaml"), "--wait", "--timeout=90s")
		Expect(err).NotTo(HaveOccurred(), out)
		out, err = runKubectl("delete", "-f", filepath.Join(root, "examples", "definition.yaml"), "--wait", "--timeout=60s")
		Expect(err).NotTo(HaveOccurred(), out)
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
		long := databases()
		long.Spec.Group = "platform.engineering.department.example.com"
		long.Name, long.Spec.Names = "databaseclusterreplicas."+long.Spec.Group, v1alpha1.DefinitionNames{Kind: "DatabaseClusterReplica", Plural: "databaseclusterreplicas"}
		Expect(env.Client.Create(ctx, long)).To(MatchError(ContainSubstring("is at most 63 characters")), "refused at create")
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
