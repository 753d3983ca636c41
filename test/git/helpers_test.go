package git_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
)

// repos counts the repositories the specs make, for their names.
var repos int

// newRepo makes a repository on srv with files in a first commit on main,
// pushed.
func newRepo(srv *gitserver.Server, files map[string]string) *gitserver.Repo {
	GinkgoHelper()
	repos++
	repo, err := srv.NewRepoWith(fmt.Sprintf("repo-%d", repos), files)
	Expect(err).NotTo(HaveOccurred())
	return repo
}

// push writes files, commits, pushes and returns the commit.
func push(repo *gitserver.Repo, files map[string]string) string {
	GinkgoHelper()
	sha, err := repo.CommitAndPush(files)
	Expect(err).NotTo(HaveOccurred())
	return sha
}

// head is the commit the repository's main points at.
func head(repo *gitserver.Repo) string {
	GinkgoHelper()
	sha, err := repo.Git("rev-parse", "HEAD")
	Expect(err).NotTo(HaveOccurred())
	return sha
}

// site is a Go template folder at dir: one ConfigMap <name>-config with
// the version, a greeting from the values, and a random value that only a
// render changes.
func site(dir, version string) map[string]string {
	return map[string]string{dir + "/config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Name }}-config
  namespace: {{ .Namespace }}
data:
  version: "` + version + `"
  greeting: {{ .Values.greeting | default "hello" | quote }}
  rendered: {{ randAlphaNum 16 | quote }}
`}
}

// createComponent creates a Component of spec in namespace.
func createComponent(namespace, name string, spec v1alpha1.ComponentSpec) *v1alpha1.Component {
	GinkgoHelper()
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: spec}
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	DeferCleanup(func() { _ = env.Client.Delete(ctx, c) })
	return c
}

// every is a short interval for specs that follow a branch by polling.
var every = &metav1.Duration{Duration: 2 * time.Second}

// gitSpec reads dir of url's main branch at interval.
func gitSpec(url, dir string, interval *metav1.Duration) v1alpha1.ComponentSpec {
	return v1alpha1.ComponentSpec{Git: &v1alpha1.GitSource{URL: url, Path: dir, Interval: interval}}
}

// data is a key of the ConfigMap a Component applied, "" while there is none.
func data(c *v1alpha1.Component, key string) func() string {
	return func() string {
		cm := &corev1.ConfigMap{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Name + "-config"}, cm); err != nil {
			return ""
		}
		return cm.Data[key]
	}
}

// ready is the Component's Ready condition: "<status> <reason>: <message>".
func ready(c *v1alpha1.Component) func() string {
	return func() string {
		got := &v1alpha1.Component{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), got); err != nil {
			return err.Error()
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, "Ready")
		if cond == nil {
			return "no Ready condition"
		}
		return fmt.Sprintf("%s %s: %s", cond.Status, cond.Reason, cond.Message)
	}
}

// revision is the revision of what the Component rendered last.
func revision(c *v1alpha1.Component) func() string {
	return func() string {
		got := &v1alpha1.Component{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), got); err != nil || got.Status.Source == nil {
			return ""
		}
		return got.Status.Source.Revision
	}
}

// waitVersion waits until the Component applied version and is Ready.
func waitVersion(c *v1alpha1.Component, version string) {
	GinkgoHelper()
	Eventually(data(c, "version")).WithTimeout(timeout).Should(Equal(version), "Component %s/%s", c.Namespace, c.Name)
	Eventually(ready(c)).WithTimeout(timeout).Should(HavePrefix("True Ready"))
}

// lookOncePerInterval holds, over rounds intervals, that repo gets one look
// (a ref advertisement) per interval, give or take one, whatever the
// number of Components that read it: never more than the intervals begun
// since it started and one; never fewer than the intervals ended, each
// with its jitter (a tenth), but one. It returns the looks it saw and how
// long it watched.
func lookOncePerInterval(repo string, interval time.Duration, rounds int) (int, time.Duration) {
	GinkgoHelper()
	start, before := time.Now(), server.Counts(repo).InfoRefs
	looks := func() int { return server.Counts(repo).InfoRefs - before }
	Consistently(func() error {
		n, t := looks(), time.Since(start)
		begun, ended := int((t+interval-1)/interval), int(t/(interval+interval/10))
		switch {
		case n > begun+1:
			return fmt.Errorf("%d looks in %s, more than one per interval of %s", n, t, interval)
		case n < ended-1:
			return fmt.Errorf("%d looks in %s, fewer than one per interval of %s", n, t, interval)
		}
		return nil
	}).WithTimeout(time.Duration(rounds) * interval).WithPolling(100 * time.Millisecond).Should(Succeed())
	return looks(), time.Since(start)
}

// postGitHubPush sends a push of url to the receiver's path, signed with
// token as GitHub signs it.
func postGitHubPush(path, token, url string, n int) (int, string) {
	GinkgoHelper()
	body := []byte(fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d","repository":{"clone_url":%q}}`, n, url))
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write(body)
	req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("delivery-%d", n))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text))
}

// createReceiver creates a GitHub Receiver name in namespace, whose token
// is name too, asking for a reconcile of the objects of kind called
// resource, and returns its webhook path once its status shows it.
func createReceiver(namespace, name, kind, resource string) string {
	GinkgoHelper()
	createSecret(namespace, name+"-token", map[string][]byte{"token": []byte(name)})
	r := &v1alpha1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: v1alpha1.ReceiverSpec{
		Type: v1alpha1.ReceiverGitHub, SecretRef: v1alpha1.LocalObjectReference{Name: name + "-token"},
		Resources: []v1alpha1.ReceiverResource{{Kind: kind, Name: resource}}}}
	Expect(env.Client.Create(ctx, r)).To(Succeed())
	DeferCleanup(func() { _ = env.Client.Delete(ctx, r) })
	Eventually(func() string {
		_ = env.Client.Get(ctx, client.ObjectKeyFromObject(r), r)
		return r.Status.WebhookPath
	}).WithTimeout(timeout).Should(HavePrefix("/hook/"))
	return r.Status.WebhookPath
}

// waitHandled waits until the Component's status records the reconcile
// request its annotation holds, and returns it.
func waitHandled(c *v1alpha1.Component) string {
	GinkgoHelper()
	var requested string
	Eventually(func() error {
		got := &v1alpha1.Component{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), got); err != nil {
			return err
		}
		requested = got.Annotations[operatorName+"/reconcile-requested-at"]
		if handled := got.Status.LastHandledReconcileAt; requested == "" || handled != requested {
			return fmt.Errorf("the request %q is not handled (last handled: %q)", requested, handled)
		}
		return nil
	}).WithTimeout(timeout).Should(Succeed())
	return requested
}

// configMapOf is the ConfigMap a Component applied.
func configMapOf(c *v1alpha1.Component) *corev1.ConfigMap {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Name + "-config"}, cm)).To(Succeed())
	return cm
}

// lastRequeue is when the operator's last logged pass of c said it would
// come back ("requeue" of its "reconciled" line).
func lastRequeue(c *v1alpha1.Component) time.Duration {
	GinkgoHelper()
	var requeue *float64
	for _, line := range strings.Split(string(logs.Contents()), "\n") {
		// A map: encoding/json would match "Component", the controller's
		// object, to a field for "component", the wavekit's key.
		var entry map[string]any
		if json.Unmarshal([]byte(line), &entry) != nil || entry["msg"] != "reconciled" || entry["component"] != c.Namespace+"/"+c.Name {
			continue
		}
		if seconds, ok := entry["requeue"].(float64); ok {
			requeue = &seconds
		}
	}
	Expect(requeue).NotTo(BeNil(), "no pass of %s/%s logged", c.Namespace, c.Name)
	return time.Duration(*requeue * float64(time.Second))
}

// createSecret creates a Secret in namespace.
func createSecret(namespace, name string, data map[string][]byte) {
	GinkgoHelper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: data}
	Expect(env.Client.Create(ctx, s)).To(Succeed())
	DeferCleanup(func() { _ = env.Client.Delete(ctx, s) })
}

// benchRounds is normal in make test, and bench under make bench-git
// (WAVEKIT_GIT_BENCH=1), which measures over more rounds.
func benchRounds(normal, bench int) int {
	if os.Getenv("WAVEKIT_GIT_BENCH") != "" {
		return bench
	}
	return normal
}

// report prints a figure for docs/benchmarks.md, marked "bench:".
func report(format string, args ...any) {
	GinkgoWriter.Printf("bench: "+format+"\n", args...)
	if os.Getenv("WAVEKIT_GIT_BENCH") != "" {
		fmt.Printf("bench: "+format+"\n", args...)
	}
}

// durations says the median and the longest of ds.
func durations(ds []time.Duration) string {
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	return fmt.Sprintf("median %s, max %s over %d pushes", sorted[len(sorted)/2].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond), len(sorted))
}
