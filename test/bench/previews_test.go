package bench_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/fakescm"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// previewEvents is how many pull requests BenchmarkPreviews opens, one
// event each.
const previewEvents = 5

// BenchmarkPreviews measures preview environments of pull requests: the
// component-operator binary with its receiver, a fake GitHub API, and a set
// of the repository's labelled pull requests read every hour. Each round
// opens a labelled pull request and sends its signed pull_request event;
// the time from the event to the preview's Component Ready, and the API
// requests it made. Then fifty sets of the same repository, read every
// two seconds: the listings the API got per interval.
func BenchmarkPreviews(b *testing.B) {
	hub := env.Get(b)
	tenant := filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "tenant")
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		api := fakescm.New()
		ns := newNamespace(b, hub, "previews")
		receiver := freeAddress(b)
		op := startOperator(b, ctx, hub, map[string]string{"tenant": tenant}, []string{ns}, "--receiver-bind-address", receiver)
		took, requests := previewRounds(b, ctx, hub.Client, api, ns, "http://"+receiver)
		slices.Sort(took)
		b.ReportMetric(took[len(took)/2].Seconds(), "s-event-to-Ready-median")
		b.ReportMetric(took[len(took)-1].Seconds(), "s-event-to-Ready-max")
		b.ReportMetric(float64(requests)/previewEvents, "API-requests-per-event")
		b.ReportMetric(listingsPerInterval(b, ctx, hub.Client, api, ns), "listings-per-interval-50-sets")
		op.stop(b)
		api.Close()
		cancel()
	}
}

// previewRounds opens previewEvents pull requests one after the other and
// returns how long each took from its event to its preview Ready, and the
// API requests all of them made.
func previewRounds(b *testing.B, ctx context.Context, c client.Client, api *fakescm.Server, ns, receiver string) ([]time.Duration, int) {
	must(b, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook"}, Data: map[string][]byte{"token": []byte("hook-key")}}))
	hook := &v1alpha1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "previews"}, Spec: v1alpha1.ReceiverSpec{
		Type: v1alpha1.ReceiverGitHub, SecretRef: v1alpha1.LocalObjectReference{Name: "hook"},
		Resources: []v1alpha1.ReceiverResource{{Kind: "ComponentSet", Name: "previews"}}}}
	must(b, c.Create(ctx, hook))
	waitFor(b, ctx, func() bool {
		return c.Get(ctx, client.ObjectKeyFromObject(hook), hook) == nil && hook.Status.WebhookPath != ""
	})
	must(b, c.Create(ctx, previewSet(ns, "previews", api.URL, "preview")))
	waitFor(b, ctx, func() bool { return api.Count("/repos/acme/shop/pulls", 0) == 1 })
	before := len(api.Requests())
	var took []time.Duration
	for n := 1; n <= previewEvents; n++ {
		api.Add("acme/shop", fakescm.PR{Number: n, Branch: fmt.Sprintf("b%d", n), Target: "main", Head: fmt.Sprintf("%040d", n), Labels: []string{"preview"}})
		start := time.Now()
		postPullRequestEvent(b, receiver+hook.Status.WebhookPath, "hook-key", api.URL, n)
		waitComponentsReady(b, ctx, c, ns, n)
		took = append(took, time.Since(start))
	}
	return took, len(api.Requests()) - before
}

// listingsPerInterval creates fifty sets of one repository read every two
// seconds, whose filter keeps no pull request, and returns the listings
// the API got per interval over ten intervals.
func listingsPerInterval(b *testing.B, ctx context.Context, c client.Client, api *fakescm.Server, ns string) float64 {
	const interval = 2 * time.Second
	for i := range 50 {
		set := previewSet(ns, fmt.Sprintf("fifty-%02d", i), api.URL, "none")
		set.Spec.Inputs.Interval = &metav1.Duration{Duration: interval}
		must(b, c.Create(ctx, set))
	}
	time.Sleep(interval) // every set read once
	before := api.Count("/repos/acme/shop/pulls", 0)
	time.Sleep(10 * interval)
	return float64(api.Count("/repos/acme/shop/pulls", 0)-before) / 10
}

// previewSet is a set of the labelled pull requests of acme/shop on api.
func previewSet(ns, name, api, label string) *v1alpha1.ComponentSet {
	return &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSetSpec{
		Inputs: &v1alpha1.Inputs{
			InputSource: v1alpha1.InputSource{PullRequests: &v1alpha1.PullRequestsInput{Provider: v1alpha1.PullRequestsGitHub,
				URL: api, Repository: "acme/shop", Labels: []string{label}}},
			Name: "preview-${input.number}", Interval: &metav1.Duration{Duration: time.Hour},
		},
		Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "tenant"}},
	}}
}

// postPullRequestEvent sends GitHub's pull_request event of pull request n,
// signed with key.
func postPullRequestEvent(b *testing.B, url, key, api string, n int) {
	body := fmt.Appendf(nil, `{"action":"labeled","number":%d,"repository":{"html_url":%q}}`, n, api+"/acme/shop")
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(body)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	must(b, err)
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("bench-%d", n))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	must(b, err)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("the receiver answered %s", resp.Status)
	}
}

// must fails b on an error.
func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// waitFor polls done until it holds, or fails b when ctx ends.
func waitFor(b *testing.B, ctx context.Context, done func() bool) {
	b.Helper()
	for !done() {
		if ctx.Err() != nil {
			b.Fatalf("waiting: %v", ctx.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
