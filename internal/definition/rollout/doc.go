// Package rollout decides, without I/O, which revision of a
// ComponentDefinition each instance of its kind runs, and how a move to a
// new revision goes on: the instances are put in waves (by label selector,
// count or percentage, in the order of their namespace and name; those no
// wave takes last), a wave may move once every instance of the waves
// before it is Ready at the new revision, and the rollout halts at an
// instance that failed at it, naming it, and names that one for as long as
// it fails, whatever other instances fail meanwhile. Pinned instances keep their
// revision; new instances get the one the others ran before the rollout
// until it is complete.
//
// Both sides ask it: the definition's controller (Step: where the rollout
// is now) and each instance's reconcile (Desired: what to run), so they
// agree on the same inputs.
package rollout
