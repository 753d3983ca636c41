package reliability_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Three operator processes on one API server: shard "blue", shard "green"
// and the unsharded one, all of the same operator name. Each reconciles the
// Components its label selects, a Component moves between shards without
// losing an object, and a shard's standby takes over when its leader dies.
var _ = Describe("shards", Ordered, func() {
	const ns = "shards"
	ctx := context.Background()
	shardLabel := manifests.Key(crashOperator, component.LabelShard)
	var blue, blueStandby, green, unsharded *shardProcess
	components := map[string]*v1alpha1.Component{}

	BeforeAll(func() {
		newNamespace(ctx, ns)
		blue = startShard("blue", ns)
		eventually(func() string { return leaseHolder(ctx, ns, crashOperator+".component-operator.shard-blue") }).ShouldNot(BeEmpty())
		blueStandby = startShard("blue", ns) // the Lease is blue's: this one waits
		green = startShard("green", ns)
		unsharded = startShard("", ns)
		for name, shard := range map[string]string{"b": "blue", "g": "green", "u": ""} {
			c := newComponent(ns, name, "shard", nil)
			if shard != "" {
				c.Labels = map[string]string{shardLabel: shard}
			}
			Expect(env.Client.Create(ctx, c)).To(Succeed())
			components[name] = c
		}
		DeferCleanup(func() {
			for _, c := range components {
				Expect(client.IgnoreNotFound(env.Client.Delete(ctx, c))).To(Succeed())
			}
			for _, c := range components {
				eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("gone"))
			}
			Expect(ownedIn(ctx, ns)).To(BeEmpty(), "objects left behind")
		})
	})

	It("reconciles each Component in the shard its label names, and in no other", func() {
		for _, c := range components {
			eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		}
		for _, p := range []*shardProcess{blue, green, unsharded} {
			Eventually(p.ready).Should(Equal(1), "shard %q", p.key)
			Consistently(p.ready).WithTimeout(2*time.Second).Should(Equal(1), "shard %q", p.key)
		}
	})

	It("caches the objects of its own shard only", func() {
		// Every object carries the owner label; a shard's cache selects its
		// shard label too, so it holds its Component's two ConfigMaps and
		// none of the other shard's (the unsharded process selects by the
		// owner label alone, as an operator without shards does).
		for _, p := range []*shardProcess{blue, green} {
			eventually(p.cached).WithArguments("ConfigMap").Should(Equal(2), "shard %q", p.key)
		}
	})

	It("hands a Component over to another shard without deleting or re-creating an object", func() {
		b := components["b"]
		before := ownedIn(ctx, ns)
		history := watchHistory(ctx, ns, crashOperator)
		relabel(ctx, b, shardLabel, "green")
		Eventually(green.ready).Should(Equal(2))
		Eventually(blue.ready).Should(Equal(0))
		for _, name := range []string{"b-0", "b-1"} {
			eventually(func() map[string]string { return getConfigMap(ctx, ns, name).Labels }).
				Should(HaveKeyWithValue(shardLabel, "green"), "%s is green's now", name)
		}
		eventually(green.cached).WithArguments("ConfigMap").Should(Equal(4), "green caches b's objects")
		eventually(blue.cached).WithArguments("ConfigMap").Should(BeZero(), "blue lets b's objects go")
		// The move writes each object once, to relabel it, and no more.
		Consistently(func() map[string]int { return modified(history, "b-0", "b-1") }).WithTimeout(2*time.Second).
			Should(And(HaveKeyWithValue("b-0", 1), HaveKeyWithValue("b-1", 1)), "each of b's objects is written once by the move")

		changeValues(ctx, b, map[string]any{"greeting": "moved"})
		eventually(func() string { return getConfigMap(ctx, ns, "b-0").Data["greeting"] }).Should(Equal("moved"))
		eventually(func() string { return readyCondition(ctx, b) }).Should(HavePrefix("True/Ready"))
		for _, name := range []string{"b-0", "b-1"} {
			Expect(getConfigMap(ctx, ns, name).Labels).To(HaveKeyWithValue(shardLabel, "green"), "%s is green's now", name)
		}
		Expect(getConfigMap(ctx, ns, "u-0").Labels).NotTo(HaveKey(shardLabel), "the unsharded operator labels nothing")
		after := ownedIn(ctx, ns)
		for key, version := range before {
			Expect(after).To(HaveKey(key))
			Expect(after[key].UID).To(Equal(version.UID), "%s was re-created", key)
		}
		for key, events := range history.snapshot() {
			Expect(events[watch.Deleted]).To(BeZero(), "%s was deleted", key)
		}
	})

	It("keeps a Component while a Component of another shard depends on it", func() {
		g := components["g"]
		d := newComponent(ns, "d", "shard", nil)
		d.Labels = map[string]string{shardLabel: "blue"}
		d.Spec.DependsOn = []v1alpha1.DependencyReference{{Name: g.Name}}
		Expect(env.Client.Create(ctx, d)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, d) }).Should(HavePrefix("True/Ready"))

		// green finds d in its record of the other shards' dependencies.
		Expect(env.Client.Delete(ctx, g)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, g) }).
			Should(HavePrefix("False/DeletionBlocked: deletion waits for " + ns + "/d, which depends on it"))
		Expect(env.Client.Delete(ctx, d)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, d) + " " + readyCondition(ctx, g) }).Should(Equal("gone gone"))
		delete(components, "g")
	})

	It("fails over to a standby of the shard when its leader dies", func() {
		c := components["u"]
		history := watchHistory(ctx, ns, crashOperator)
		relabel(ctx, c, shardLabel, "blue")
		Eventually(blue.ready).Should(Equal(1), "the leader takes the Component")
		// Objects the unsharded process wrote carry no shard label: the
		// shard's pass labels each, with one write.
		for _, name := range []string{"u-0", "u-1"} {
			eventually(func() map[string]string { return getConfigMap(ctx, ns, name).Labels }).
				Should(HaveKeyWithValue(shardLabel, "blue"), "%s is blue's now", name)
		}
		Consistently(func() map[string]int { return modified(history, "u-0", "u-1") }).WithTimeout(2*time.Second).
			Should(And(HaveKeyWithValue("u-0", 1), HaveKeyWithValue("u-1", 1)), "each of u's objects is relabelled once")
		Expect(blueStandby.ready()).To(Equal(0), "the standby waits")

		blue.kill()
		changeValues(ctx, c, map[string]any{"greeting": "failed over"})
		Eventually(func() string { return getConfigMap(ctx, ns, "u-0").Data["greeting"] }).
			WithTimeout(time.Minute).Should(Equal("failed over"), "the standby takes the Lease when the leader's expires")
		Eventually(blueStandby.ready).Should(Equal(1))
	})
})

// shardProcess is one component-operator process of a shard.
type shardProcess struct {
	*binaryOperator
	key, metrics string
}

// startShard runs the operator binary as shard key ("" for the unsharded
// one), with leader election in ns and a plain-HTTP metrics endpoint.
func startShard(key, ns string) *shardProcess {
	GinkgoHelper()
	p := &shardProcess{binaryOperator: newBinaryOperator(), key: key, metrics: freeAddress()}
	p.start("--shard", key, "--source", "shard="+testdata("shard"), "--watch-namespaces", ns,
		"--leader-elect", "--leader-election-namespace", ns,
		"--metrics-bind-address", p.metrics, "--metrics-secure=false")
	return p
}

// ready is the process's wavekit_components gauge for the state Ready: the
// Components it reconciled to Ready and still holds.
func (p *shardProcess) ready() int {
	body, err := get("http://" + p.metrics + "/metrics")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "wavekit_components{") && strings.Contains(line, `state="Ready"`) {
			n, _ := strconv.Atoi(line[strings.LastIndex(line, " ")+1:])
			return n
		}
	}
	return 0
}

// cached is the process's wavekit_cached_objects of resource: the objects
// of that resource its informers hold.
func (p *shardProcess) cached(resource string) int {
	body, err := get("http://" + p.metrics + "/metrics")
	if err != nil {
		return -1
	}
	n := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "wavekit_cached_objects{") && strings.Contains(line, `resource="`+resource+`"`) {
			v, _ := strconv.Atoi(line[strings.LastIndex(line, " ")+1:])
			n += v
		}
	}
	return n
}

// modified counts the MODIFIED events of the ConfigMaps names in history.
func modified(history *objectHistory, names ...string) map[string]int {
	out := map[string]int{}
	for key, events := range history.snapshot() {
		if key.Kind == "ConfigMap" && slices.Contains(names, key.Name) {
			out[key.Name] = events[watch.Modified]
		}
	}
	return out
}

// leaseHolder is the holder of the leader-election Lease name in ns ("" if
// none).
func leaseHolder(ctx context.Context, ns, name string) string {
	var lease coordinationv1.Lease
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &lease); err != nil || lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// relabel sets label to value on c, retrying on conflicts.
func relabel(ctx context.Context, c *v1alpha1.Component, label, value string) {
	GinkgoHelper()
	eventually(func() error {
		got := getComponent(ctx, c)
		if got.Labels == nil {
			got.Labels = map[string]string{}
		}
		got.Labels[label] = value
		return env.Client.Update(ctx, got)
	}).Should(Succeed())
}
