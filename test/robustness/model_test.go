package robustness_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Source kinds of the soak's Components.
const (
	sourceWaves  = "waves"  // Go templates, three waves, a Deployment
	sourceHooks  = "hooks"  // a Helm chart with hook Jobs and waves
	sourceKust   = "kust"   // a kustomization
	sourceShop   = "shop"   // templates with a PostgreSQL role and database
	sourceMember = "member" // the waves templates on a member cluster
	sourceCRDs   = "crds"   // templates: a CRD of the Component's own, and a ConfigMap
)

var sources = []string{sourceWaves, sourceHooks, sourceKust, sourceShop, sourceMember, sourceCRDs}

// comp is what the generator knows of one Component: enough to say what
// it must render, independently of the operator.
type comp struct {
	name, source, shard string
	member              string // the member cluster of a member component
	greeting, password  string
	count, replicas     int
	itemsOrder          int    // the apply-order of the items: 1, or 3 (after the last wave)
	donePolicy          string // the update-policy of the last wave's ConfigMap: "" or recreate
	suspended           bool
	warn                bool   // drift mode Warn
	checked             bool   // a health check of its ConfigMaps' current state
	failing             bool   // its last change fails its health check: rolled back
	chartVersion        string // the version of the hooks chart: 0.1.0, or 0.2.0 which adds a ConfigMap
	settled             bool   // it was Ready at a quiet point: its CRD is served
	instance            bool   // a foreign instance of its CRD exists
}

// Versions of the hooks chart the soak's chart repository serves.
const (
	chartV1 = "0.1.0"
	chartV2 = "0.2.0"
)

// model is the generator's view of the soak's world: the live Components,
// the clusters in the set, the foreign objects. Only the generator changes
// it, as it makes steps, so that a seed gives one sequence of steps.
type model struct {
	sources []string // the source kinds it makes Components of
	faults  bool     // whether its cycles hold faults
	rng     *rand.Rand
	next    int
	comps   map[string]*comp
	// blocked are the deleted Components whose deletion a foreign instance
	// of their CRD holds back.
	blocked  map[string]*comp
	inSet    map[string]bool // member clusters the set selects
	foreign  int
	members  int
	sequence int // a counter for values that must differ each time
}

func newModel(seed int64, members int, sources []string, faults bool) *model {
	return &model{rng: rand.New(rand.NewPCG(uint64(seed), 67)), comps: map[string]*comp{}, blocked: map[string]*comp{},
		inSet: map[string]bool{}, members: members, sources: sources, faults: faults}
}

// names are the live Components' names in order: choices among them
// depend on the seed only.
func (m *model) names(sourceKinds ...string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m.comps)) {
		if len(sourceKinds) == 0 || slices.Contains(sourceKinds, m.comps[name].source) {
			out = append(out, name)
		}
	}
	return out
}

func (m *model) pick(names []string) string { return names[m.rng.IntN(len(names))] }

// fresh returns a value that no earlier call returned.
func (m *model) fresh(prefix string) string {
	m.sequence++
	return fmt.Sprintf("%s-%d-%d", prefix, m.sequence, m.rng.IntN(1_000_000))
}

// newComp makes a Component of a random source.
func (m *model) newComp() *comp {
	m.next++
	c := &comp{name: fmt.Sprintf("c%d", m.next), source: m.sources[m.rng.IntN(len(m.sources))],
		shard: []string{"a", "b"}[m.rng.IntN(2)], greeting: m.fresh("hello"),
		password: m.fresh("soak-password-" + strings.Repeat("x", 4)), count: 1 + m.rng.IntN(3), replicas: 1 + m.rng.IntN(2),
		itemsOrder: 1}
	switch c.source {
	case sourceMember:
		c.member = memberName(m.rng.IntN(m.members))
	case sourceHooks:
		c.chartVersion = chartV1
	}
	m.comps[c.name] = c
	return c
}

func memberName(i int) string { return fmt.Sprintf("member-%d", i+1) }

// values are the Component's spec.values.
func (c *comp) values(op, ns string) map[string]any {
	v := map[string]any{"op": op, "greeting": c.greeting}
	switch c.source {
	case sourceWaves, sourceMember:
		v["count"], v["password"], v["deployment"] = c.count, c.password, c.source == sourceWaves
		v["replicas"], v["itemsOrder"], v["donePolicy"], v["fail"] = c.replicas, c.itemsOrder, c.donePolicy, c.failing
	case sourceHooks:
		v["replicas"] = c.replicas
	case sourceShop:
		v["database"], v["adminSecret"], v["port"] = database(ns, c.name), "postgres-admin", fmt.Sprint(pg.Port())
	case sourceKust:
		return nil
	case sourceCRDs:
		v["kind"], v["plural"] = c.kind(), strings.ToLower(c.kind())+"s"
	}
	return v
}

// kind is the kind of the CRD of a crds Component: Widget12 for c12.
func (c *comp) kind() string { return "Widget" + strings.TrimPrefix(c.name, "c") }

// crdName is the name of the CRD of a crds Component.
func (c *comp) crdName() string { return strings.ToLower(c.kind()) + "s." + crdGroup }

// crdGroup is the group of the crds Components' CRDs.
const crdGroup = "soak.example"

// healthChecks are the Component's health checks: one of its ConfigMaps'
// current state when checked and, for a waves Component, one that fails a
// ConfigMap holding data.fail (the rollback operation's change).
func (c *comp) healthChecks() []manifests.HealthCheck {
	check := manifests.HealthCheck{APIVersion: "v1", Kind: "ConfigMap"}
	if c.checked {
		check.Current = "has(self.data)"
	}
	if c.source == sourceWaves {
		check.Failed = "has(self.data) && has(self.data.fail)"
	}
	if check == (manifests.HealthCheck{APIVersion: "v1", Kind: "ConfigMap"}) {
		return nil
	}
	return []manifests.HealthCheck{check}
}

// database is the PostgreSQL role and database of a shop Component.
func database(ns, name string) string {
	return strings.ReplaceAll(ns+"_"+name, "-", "_")
}

// rendered are the objects the Component must have in its inventory, and
// live, once it converged: by the source's templates and the values.
func (c *comp) rendered(ns string) []manifests.ObjectKey {
	cm := func(name string) manifests.ObjectKey {
		return manifests.ObjectKey{Kind: "ConfigMap", Namespace: ns, Name: name}
	}
	obj := func(group, kind, name string) manifests.ObjectKey {
		return manifests.ObjectKey{Group: group, Kind: kind, Namespace: ns, Name: name}
	}
	switch c.source {
	case sourceWaves, sourceMember:
		out := []manifests.ObjectKey{cm(c.name + "-config"), obj("", "Secret", c.name+"-secret"), cm(c.name + "-done")}
		for i := range c.count {
			out = append(out, cm(fmt.Sprintf("%s-item-%d", c.name, i)))
		}
		if c.source == sourceWaves {
			out = append(out, obj("apps", "Deployment", c.name+"-web"))
		}
		return out
	case sourceHooks:
		out := []manifests.ObjectKey{cm(c.name + "-settings"), cm(c.name + "-after"), obj("apps", "Deployment", c.name+"-web"),
			obj("batch", "Job", c.name+"-migrate-a"), obj("batch", "Job", c.name+"-migrate-b"), obj("batch", "Job", c.name+"-notify")}
		if c.chartVersion == chartV2 {
			out = append(out, cm(c.name+"-extra"))
		}
		return out
	case sourceShop:
		return []manifests.ObjectKey{cm(c.name + "-settings"), cm(c.name + "-ready")}
	case sourceCRDs:
		return []manifests.ObjectKey{cm(c.name + "-config"), {Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition", Name: c.crdName()}}
	default: // kust
		return []manifests.ObjectKey{cm(c.name + "-config")}
	}
}

// kustPatches rename the kustomization's ConfigMap after the Component and
// set its greeting.
func (c *comp) kustPatch() string {
	return fmt.Sprintf(`[{"op":"replace","path":"/metadata/name","value":"%s-config"},{"op":"replace","path":"/data/greeting","value":"%s"}]`,
		c.name, c.greeting)
}
