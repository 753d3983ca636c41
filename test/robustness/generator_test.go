package robustness_test

import (
	"fmt"
	"time"
)

// Operations on the soak's world.
const (
	opCreate     = "create"
	opChange     = "change"      // values: greeting, count, replicas, password
	opWaves      = "waves"       // a wave moved: the items after the last wave, and back
	opPolicy     = "policy"      // an object's update-policy: recreate, and back
	opSuspend    = "suspend"     // and resume
	opRequest    = "request"     // reconcile on request (the annotation)
	opDrift      = "drift"       // drift mode Warn, and back to Correct
	opRelabel    = "relabel"     // to the other shard: a handover
	opDelete     = "delete"      // the Component
	opHandEdit   = "hand-edit"   // an owned ConfigMap's data
	opHandDelete = "hand-delete" // an owned ConfigMap
	opForeign    = "foreign"     // an object of others beside the owned ones
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
	stepsPerCycle  = 22
	faultsPerCycle = 4
)

// cycle makes the steps of the next cycle.
func (m *model) cycle() []step {
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
		s.pause = time.Duration(200+m.rng.IntN(1800)) * time.Millisecond
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
	case r < 18:
		return step{op: opCreate, comp: snapshot(m.newComp())}
	case r < 30:
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
	case r < 80:
		return m.handEdit(live, opHandEdit)
	case r < 86:
		return m.handEdit(live, opHandDelete)
	case r < 93:
		m.foreign++
		return step{op: opForeign, target: fmt.Sprintf("theirs-%d", m.rng.IntN(3)), n: m.foreign}
	}
	cluster := memberName(m.rng.IntN(m.members))
	m.inSet[cluster] = !m.inSet[cluster]
	return step{op: opCluster, target: cluster, n: map[bool]int{false: 0, true: 1}[m.inSet[cluster]]}
}

func (m *model) remove(live []string) step {
	c := m.comps[m.pick(live)]
	delete(m.comps, c.name)
	return step{op: opDelete, comp: snapshot(c)}
}

// change changes what a Component renders.
func (m *model) change(live []string) step {
	c := m.comps[m.pick(live)]
	c.greeting = m.fresh("hello")
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

// reshape moves a wave or changes an update policy of a Component of the
// wave templates (waves, member); of another source, it changes its values.
func (m *model) reshape(live []string) step {
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
