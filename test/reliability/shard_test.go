package reliability_test

import (
	"context"
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

	It("hands a Component over to another shard without deleting or re-creating an object", func() {
		b := components["b"]
		before := ownedIn(ctx, ns)
		history := watchHistory(ctx, ns, crashOperator)
		relabel(ctx, b, shardLabel, "green")
		Eventually(green.ready).Should(Equal(2))
		Eventually(blue.ready).Should(Equal(0))

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
		relabel(ctx, c, shardLabel, "blue")
		Eventually(blue.ready).Should(Equal(1), "the leader takes the Component")
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
