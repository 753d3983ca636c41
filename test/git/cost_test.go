package git_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

var _ = Describe("what a Git repository costs", func() {
	It("renders nothing for a commit that touches only another folder than its sparse checkout", func() {
		files := site("team-a", "a1")
		for k, v := range site("team-b", "b1") {
			files[k] = v
		}
		repo := newRepo(server, files)
		spec := gitSpec(server.HTTPURL(repo.Name), "team-a", every)
		spec.Git.SparseCheckout = []string{"team-a"}
		c := createComponent(teamA, "sparse", spec)
		waitVersion(c, "a1")
		rendered, first := data(c, "rendered")(), revision(c)()

		// The interval's own looks show what a commit costs (a reconcile
		// request renders by the same rule: follow_test.go).
		before := server.Counts(repo.Name)
		push(repo, site("team-b", "b2"))
		Eventually(func() int { return server.Counts(repo.Name).UploadPacks }).WithTimeout(timeout).Should(Equal(before.UploadPacks+1), "the new commit is fetched")
		looked := server.Counts(repo.Name).InfoRefs
		Eventually(func() int { return server.Counts(repo.Name).InfoRefs }).WithTimeout(timeout).Should(BeNumerically(">", looked), "a later pass looks again")
		Expect(data(c, "rendered")()).To(Equal(rendered), "the commit is not rendered")
		Expect(revision(c)()).To(Equal(first))

		mine := push(repo, site("team-a", "a2"))
		waitVersion(c, "a2")
		Expect(data(c, "rendered")()).NotTo(Equal(rendered))
		Eventually(revision(c)).Should(Equal("main@sha1:" + mine))
	})

	It("fetches a monorepo's commit once for Components of different sparse sets", func() {
		teams := []string{"team-a", "team-b", "team-c"}
		files := map[string]string{}
		for _, team := range teams {
			for k, v := range site(team, team+"-1") {
				files[k] = v
			}
		}
		repo := newRepo(server, files)
		var components []*v1alpha1.Component
		for _, team := range teams {
			spec := gitSpec(server.HTTPURL(repo.Name), team, every)
			spec.Git.SparseCheckout = []string{team}
			components = append(components, createComponent(teamA, "mono-"+team, spec))
		}
		for i, c := range components {
			waitVersion(c, teams[i]+"-1")
		}
		Expect(server.Counts(repo.Name).UploadPacks).To(Equal(1), "one fetch of the commit for the three sparse sets")

		next := map[string]string{}
		for _, team := range teams {
			for k, v := range site(team, team+"-2") {
				next[k] = v
			}
		}
		push(repo, next)
		for i, c := range components {
			waitVersion(c, teams[i]+"-2")
		}
		Expect(server.Counts(repo.Name).UploadPacks).To(Equal(2), "one fetch of the new commit for the three")
	})

	It("looks at a refused commit again at its interval, not at intervals.retry, and downloads it once", func() {
		random := make([]byte, 1600<<10)
		_, _ = rand.Read(random)
		files := site("deploy", "large")
		files["blob"] = hex.EncodeToString(random)
		large := newRepo(server, files)
		spec := gitSpec(server.HTTPURL(large.Name), "deploy", &metav1.Duration{Duration: time.Hour})
		spec.Intervals.Retry = &metav1.Duration{Duration: time.Second}
		c := createComponent(teamA, "refused-large", spec)
		Eventually(ready(c)).WithTimeout(timeout).Should(And(HavePrefix("False"), ContainSubstring("exceeds the limit of 2 MiB")))
		downloads := server.Counts(large.Name).UploadPacks
		Consistently(func() int { return server.Counts(large.Name).UploadPacks }).WithTimeout(4*time.Second).Should(Equal(downloads), "the refused commit is not downloaded again")
		Expect(lastRequeue(c)).To(BeNumerically(">", 50*time.Minute), "back at its interval of an hour, when a new commit may be there")
		Expect(data(c, "version")()).To(BeEmpty())
	})

	It("looks at its repository once per interval for one Component: each pass looks", func() {
		const interval = 2 * time.Second
		repo := newRepo(server, site("deploy", "v1"))
		c := createComponent(teamA, "lonely", gitSpec(server.HTTPURL(repo.Name), "deploy", &metav1.Duration{Duration: interval}))
		waitVersion(c, "v1")
		looks, elapsed := lookOncePerInterval(repo.Name, interval, benchRounds(8, 15))
		report("1 Component on one repository, interval %s: %d looks in %s (%.2f per interval)",
			interval, looks, elapsed.Round(time.Second), float64(looks)/(float64(elapsed)/float64(interval)))
	})

	It("makes one look at a repository per interval for a hundred Components, and one fetch per commit", func() {
		const n, interval = 100, 4 * time.Second
		ns := "many"
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		repo := newRepo(server, site("deploy", "v1"))
		var components []*v1alpha1.Component
		for i := range n {
			components = append(components, createComponent(ns, fmt.Sprintf("c%03d", i),
				gitSpec(server.HTTPURL(repo.Name), "deploy", &metav1.Duration{Duration: interval})))
		}
		for _, c := range components {
			Eventually(data(c, "version")).WithTimeout(3 * timeout).Should(Equal("v1"))
		}
		counts := server.Counts(repo.Name)
		Expect(counts.UploadPacks).To(Equal(1), "one fetch of the commit for all of them")

		window, elapsed := lookOncePerInterval(repo.Name, interval, benchRounds(5, 15))
		report("%d Components on one repository, interval %s: %d looks in %s (%.2f per interval), %d fetches of its one commit",
			n, interval, window, elapsed.Round(time.Second), float64(window)/(float64(elapsed)/float64(interval)), counts.UploadPacks)

		push(repo, site("deploy", "v2"))
		for _, c := range components {
			Eventually(data(c, "version")).WithTimeout(3 * timeout).Should(Equal("v2"))
		}
		Expect(server.Counts(repo.Name).UploadPacks).To(Equal(2), "one fetch of the new commit for all of them")
		report("after a push, the %d Components applied the new commit with %d fetch", n, server.Counts(repo.Name).UploadPacks-counts.UploadPacks)
	})
})
