package definitions_test

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
)

var databaseKind = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "Database"}

// newNamespace creates a namespace named after prefix.
func newNamespace(prefix string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(env.Client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// database is an instance of the defined kind.
func database(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(databaseKind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// read reads obj again; "" when it is gone.
func read(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(obj.GroupVersionKind())
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), u)
	return u, err
}

// readyOf says an instance's Ready condition and the revision it runs:
// "True/Ready revision 1", or "gone".
func readyOf(obj *unstructured.Unstructured) func() string {
	return func() string {
		u, err := read(obj)
		if apierrors.IsNotFound(err) {
			return "gone"
		}
		if err != nil {
			return err.Error()
		}
		revision, _, _ := unstructured.NestedInt64(u.Object, "status", "revision")
		conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conditions {
			if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
				return fmt.Sprintf("%v/%v revision %d", m["status"], m["reason"], revision)
			}
		}
		return fmt.Sprintf("no Ready condition, revision %d", revision)
	}
}

// definitionStatus says a definition's Ready condition: "True/Served: …".
func definitionStatus(name string) func() string {
	return func() string {
		def := &v1alpha1.ComponentDefinition{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, def); err != nil {
			if apierrors.IsNotFound(err) {
				return "gone"
			}
			return err.Error()
		}
		ready := meta.FindStatusCondition(def.Status.Conditions, "Ready")
		if ready == nil {
			return "no Ready condition"
		}
		return fmt.Sprintf("%s/%s: %s", ready.Status, ready.Reason, ready.Message)
	}
}

func getDefinition(name string) *v1alpha1.ComponentDefinition {
	GinkgoHelper()
	def := &v1alpha1.ComponentDefinition{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Name: name}, def)).To(Succeed())
	return def
}

// updateDefinition changes a definition, again on a conflict.
func updateDefinition(name string, change func(*v1alpha1.ComponentDefinition)) {
	GinkgoHelper()
	Eventually(func() error {
		def := &v1alpha1.ComponentDefinition{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, def); err != nil {
			return err
		}
		change(def)
		return env.Client.Update(ctx, def)
	}).WithTimeout(10 * time.Second).Should(Succeed())
}

// requestReconcile asks the operator to look at a definition's source now.
func requestReconcile(name string) {
	GinkgoHelper()
	updateDefinition(name, func(def *v1alpha1.ComponentDefinition) {
		if def.Annotations == nil {
			def.Annotations = map[string]string{}
		}
		def.Annotations["wavekit.dev/reconcile-requested-at"] = time.Now().Format(time.RFC3339Nano)
	})
}

// runKubectl runs kubectl as the cluster's admin.
func runKubectl(args ...string) (string, error) {
	cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// nested is the string at path of u, "" when there is none.
func nested(u *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, path...)
	return s
}

// written is the resourceVersion of everything the operator writes for
// the databases' definition, and of the instances of namespace, by name.
func written(namespace string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	def := &v1alpha1.ComponentDefinition{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Name: "databases." + group}, def)).To(Succeed())
	out["definition"] = def.ResourceVersion
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Name: def.Name}, crd)).To(Succeed())
	out["crd"] = crd.ResourceVersion
	for _, access := range []string{"view", "edit"} {
		role := &rbacv1.ClusterRole{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: "wavekit.dev:definition:" + def.Name + ":" + access}, role)).To(Succeed())
		out["role "+access] = role.ResourceVersion
	}
	var revisions v1alpha1.ComponentDefinitionRevisionList
	Expect(env.Client.List(ctx, &revisions)).To(Succeed())
	for _, r := range revisions.Items {
		out["revision "+r.Name] = r.ResourceVersion
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(databaseKind.GroupVersion().WithKind("DatabaseList"))
	Expect(env.Client.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
	for _, u := range list.Items {
		out["instance "+u.GetName()] = u.GetResourceVersion()
	}
	return out
}

// condition says u's condition of type kind: "False/Error: message".
func condition(u *unstructured.Unstructured, kind string) string {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == kind {
			return fmt.Sprintf("%v/%v: %v", m["status"], m["reason"], m["message"])
		}
	}
	return "no " + kind + " condition"
}

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

// pageToken is a token of a ServiceAccount that has verbs on
// ComponentDefinitions everywhere, for the status page.
func pageToken(name string, verbs ...string) string {
	GinkgoHelper()
	return roleToken(name, rbacv1.PolicyRule{APIGroups: []string{"wavekit.dev"}, Resources: []string{"componentdefinitions"}, Verbs: verbs})
}

// roleToken is the token of a service account of name granted rule.
func roleToken(name string, rule rbacv1.PolicyRule) string {
	GinkgoHelper()
	meta := metav1.ObjectMeta{Name: "page-" + name}
	Expect(env.Client.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{rule}})).To(Succeed())
	Expect(env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta,
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: meta.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: operatorNamespace, Name: name}}})).To(Succeed())
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, operatorNamespace, name)
	Expect(err).NotTo(HaveOccurred())
	return cfg.BearerToken
}

// instanceToken is the token of a service account granted verbs on the
// instances of the defined kind Database.
func instanceToken(name string, verbs ...string) string {
	GinkgoHelper()
	return roleToken(name, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{"databases"}, Verbs: verbs})
}

// overview is the page's overview as token sees it, and its CSRF token.
func overview(token string) (string, string) {
	GinkgoHelper()
	return pageOf(page+"/", token)
}

// pageOf is a page as token sees it, and its CSRF token.
func pageOf(url, token string) (string, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
	csrf := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`).FindStringSubmatch(string(body))
	Expect(csrf).To(HaveLen(2))
	return string(body), csrf[1]
}

// postAction posts an action with token and the CSRF token (none when
// empty), and returns the status, not following a redirect.
func postAction(url, token, csrf string) int {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader("csrf="+csrf))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Body.Close()).To(Succeed())
	return resp.StatusCode
}
