package robustness_test

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Operations on the soak's world.
const (
	opCreate     = "create"
	opChange     = "change"      // values: greeting, count, replicas, password
	opWaves      = "waves"       // a wave moved: the items after the last wave, and back
	opPolicy     = "policy"      // an object's update-policy: recreate, and back
	opHealth     = "health"      // a health check of ConfigMaps added, or removed
	opRollback   = "rollback"    // a change its health check fails: rolled back to the last Ready render
	opChart      = "chart"       // the hooks chart's version: 0.1.0 to 0.2.0, and back
	opSuspend    = "suspend"     // and resume
	opRequest    = "request"     // reconcile on request (the annotation)
	opDrift      = "drift"       // drift mode Warn, and back to Correct
	opRelabel    = "relabel"     // to the other shard: a handover
	opDelete     = "delete"      // the Component
	opHandEdit   = "hand-edit"   // an owned ConfigMap's data
	opHandDelete = "hand-delete" // an owned ConfigMap
	opForeign    = "foreign"     // an object of others beside the owned ones
	opInstance   = "instance"    // a foreign instance of a Component's CRD created, or deleted
	opCluster    = "cluster"     // a member cluster relabelled in or out of the set
)

// Faults, one at a time, while operations go on.
const (
	faultKill       = "kill-operator"     // SIGKILL of a replica, restarted
	faultAPIServer  = "restart-apiserver" // kube-apiserver stopped and started
	faultEtcd       = "stop-etcd"         // etcd stopped (SIGSTOP) for 5-20 s
	faultMember     = "stop-member"       // a member's kube-apiserver stopped
	faultPostgres   = "stop-postgres"     // PostgreSQL stopped
	faultKCM        = "stop-controllers"  // kube-controller-manager stopped
	faultHookDelete = "delete-hook"       // an upgrade, each hook Job deleted as it finishes
	faultCut        = "cut-connections"   // the proxy cuts the operators' connections
	faultDelay      = "delay-connections" // the proxy delays them
	faultHandover   = "kill-in-handover"  // a Component relabelled, and the new shard's leader killed at once
)

var faults = []string{faultKill, faultAPIServer, faultEtcd, faultMember, faultPostgres, faultKCM, faultHookDelete, faultCut, faultDelay, faultHandover}

// step is one operation or fault, with everything it needs decided by the
// generator; after it the soak pauses for pause (pacing, not waiting).
type step struct {
	op, fault string
	comp      *comp // a snapshot of the Component after the operation
	target    string
	n         int
	for_      time.Duration
	pause     time.Duration
}

func (s step) String() string {
	what := s.op
	if s.fault != "" {
		what = "fault " + s.fault
	}
	if s.comp != nil {
		what += " " + s.comp.name + " (" + s.comp.source + ")"
	}
	if s.target != "" {
		what += " " + s.target
	}
	if s.for_ > 0 {
		what += fmt.Sprintf(" for %s", s.for_)
	}
	return what
}

// stepsPerCycle are the steps between two quiet points, of which
// faultsPerCycle are faults.
const (
	stepsPerCycle  = 30
	faultsPerCycle = 5
)

// cycle makes the steps of the next cycle.
func (m *model) cycle() []step {
	for _, c := range m.comps { // the last quiet point saw each Ready
		c.settled = c.settled || !c.suspended
	}
	var out []step
	faultAt := map[int]bool{}
	for m.faults && len(faultAt) < faultsPerCycle {
		faultAt[m.rng.IntN(stepsPerCycle)] = true
	}
	for i := range stepsPerCycle {
		var s step
		if faultAt[i] {
			s = m.fault()
		} else {
			s = m.operation()
		}
		s.pause = time.Duration(100+m.rng.IntN(900)) * time.Millisecond
		out = append(out, s)
	}
	return out
}

// operation picks an operation that fits the world as the model has it.
func (m *model) operation() step {
	live := m.names()
	switch {
	case len(live) < 3:
		return step{op: opCreate, comp: snapshot(m.newComp())}
	case len(live) >= 8:
		return m.remove(live)
	}
	switch r := m.rng.IntN(100); {
	case r < 15:
		return step{op: opCreate, comp: snapshot(m.newComp())}
	case r < 27:
		return m.change(live)
	case r < 38:
		return m.reshape(live)
	case r < 44:
		c := m.comps[m.pick(live)]
		c.suspended = !c.suspended
		return step{op: opSuspend, comp: snapshot(c)}
	case r < 50:
		return step{op: opRequest, comp: snapshot(m.comps[m.pick(live)])}
	case r < 55:
		c := m.comps[m.pick(live)]
		c.warn = !c.warn
		return step{op: opDrift, comp: snapshot(c)}
	case r < 63:
		c := m.comps[m.pick(live)]
		c.shard = map[string]string{"a": "b", "b": "a"}[c.shard]
		return step{op: opRelabel, comp: snapshot(c)}
	case r < 70:
		return m.remove(live)
	case r < 77:
		return m.handEdit(live, opHandEdit)
	case r < 83:
		return m.handEdit(live, opHandDelete)
	case r < 88:
		m.foreign++
		return step{op: opForeign, target: fmt.Sprintf("theirs-%d", m.rng.IntN(3)), n: m.foreign}
	case r < 92:
		if s, ok := m.instance(); ok {
			return s
		}
		return m.change(live)
	}
	cluster := memberName(m.rng.IntN(m.members))
	m.inSet[cluster] = !m.inSet[cluster]
	return step{op: opCluster, target: cluster, n: map[bool]int{false: 0, true: 1}[m.inSet[cluster]]}
}

func (m *model) remove(live []string) step {
	c := m.comps[m.pick(live)]
	delete(m.comps, c.name)
	if c.instance {
		m.blocked[c.name] = c
	}
	return step{op: opDelete, comp: snapshot(c)}
}

// instance creates a foreign instance of the CRD of a crds Component that
// was Ready once, or deletes it; deleting the last one of a deleted
// Component lets its deletion go on (target "blocked"). ok is false when
// no Component serves a CRD yet.
func (m *model) instance() (s step, ok bool) {
	var names []string
	for _, name := range m.names(sourceCRDs) {
		if m.comps[name].settled {
			names = append(names, name)
		}
	}
	names = append(names, slices.Sorted(maps.Keys(m.blocked))...)
	if len(names) == 0 {
		return step{}, false
	}
	name := m.pick(names)
	if c, blocked := m.blocked[name]; blocked {
		delete(m.blocked, name)
		c.instance = false
		return step{op: opInstance, comp: snapshot(c), target: "blocked"}, true
	}
	c := m.comps[name]
	c.instance = !c.instance
	return step{op: opInstance, comp: snapshot(c), n: map[bool]int{false: 0, true: 1}[c.instance]}, true
}

// change changes what a Component renders, and mends a failing one.
func (m *model) change(live []string) step {
	c := m.comps[m.pick(live)]
	c.greeting, c.failing = m.fresh("hello"), false
	switch m.rng.IntN(3) {
	case 0:
		c.count = 1 + m.rng.IntN(3)
	case 1:
		c.replicas = 1 + m.rng.IntN(2)
	default:
		c.password = m.fresh("soak-password-xxxx")
	}
	return step{op: opChange, comp: snapshot(c)}
}

// reshape changes how a Component is applied rather than its values: it
// moves a wave or changes an update policy (the wave templates: waves,
// member), adds or removes a health check, makes a change that fails and
// is rolled back (waves), or changes the version of the chart (hooks). With
// no Component of the kind it needs, it changes values.
func (m *model) reshape(live []string) step {
	switch m.rng.IntN(5) {
	case 0, 1:
		return m.reshapeWaves(live)
	case 2:
		c := m.comps[m.pick(live)]
		c.checked = !c.checked
		return step{op: opHealth, comp: snapshot(c)}
	case 3:
		failing := m.names(sourceWaves)
		if len(failing) == 0 {
			return m.change(live)
		}
		c := m.comps[m.pick(failing)]
		c.greeting, c.failing = m.fresh("hello"), true
		return step{op: opRollback, comp: snapshot(c)}
	}
	charts := m.names(sourceHooks)
	if len(charts) == 0 {
		return m.change(live)
	}
	c := m.comps[m.pick(charts)]
	c.chartVersion = map[string]string{chartV1: chartV2, chartV2: chartV1}[c.chartVersion]
	return step{op: opChart, comp: snapshot(c)}
}

// reshapeWaves moves a wave or changes an update policy of a Component of
// the wave templates.
func (m *model) reshapeWaves(live []string) step {
	shaped := m.names(sourceWaves, sourceMember)
	if len(shaped) == 0 {
		return m.change(live)
	}
	c := m.comps[m.pick(shaped)]
	if m.rng.IntN(2) == 0 {
		c.itemsOrder = map[int]int{1: 3, 3: 1}[c.itemsOrder]
		return step{op: opWaves, comp: snapshot(c)}
	}
	c.donePolicy = map[string]string{"": "recreate", "recreate": ""}[c.donePolicy]
	return step{op: opPolicy, comp: snapshot(c)}
}

// handEdit edits or deletes one of the ConfigMaps a Component renders.
func (m *model) handEdit(live []string, op string) step {
	c := m.comps[m.pick(live)]
	var names []string
	for _, key := range c.rendered("") {
		if key.Kind == "ConfigMap" {
			names = append(names, key.Name)
		}
	}
	return step{op: op, comp: snapshot(c), target: names[m.rng.IntN(len(names))]}
}

// fault picks a fault and how long it lasts.
func (m *model) fault() step {
	s := step{fault: faults[m.rng.IntN(len(faults))], for_: time.Duration(5+m.rng.IntN(16)) * time.Second}
	switch s.fault {
	case faultKill:
		s.n, s.for_ = m.rng.IntN(4), time.Duration(m.rng.IntN(3000))*time.Millisecond
	case faultMember:
		s.target = memberName(m.rng.IntN(m.members))
	case faultDelay:
		s.n = 100 + m.rng.IntN(700) // milliseconds a chunk
	case faultHandover:
		if live := m.names(); len(live) > 0 {
			c := m.comps[m.pick(live)]
			c.shard = map[string]string{"a": "b", "b": "a"}[c.shard]
			s.comp = snapshot(c)
		}
		s.for_ = time.Duration(m.rng.IntN(3000)) * time.Millisecond
	case faultHookDelete:
		if hooks := m.names(sourceHooks); len(hooks) > 0 {
			c := m.comps[m.pick(hooks)]
			c.greeting = m.fresh("hello")
			s.comp = snapshot(c)
		}
	}
	return s
}

func snapshot(c *comp) *comp {
	copied := *c
	return &copied
}
