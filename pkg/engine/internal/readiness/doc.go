// Package readiness judges a live object as a wave waits for it: kstatus,
// with the rules it takes shortcuts past (CRDs Established, APIServices
// Available, Jobs Complete, StatefulSets and DaemonSets updated OnDelete,
// paused Deployments) and the object's status hints (Compute), or the
// owner's CEL health checks of its kind (HealthChecks). Phase turns the
// judgement into the inventory's phase and status, keeping an object's
// progress ("Available: 1/3") apart so that a rollout does not change the
// status at every replica. ObservedGenerations tells the custom kinds whose
// CRD declares status.observedGeneration: an object of such a kind that
// reports none yet has not been looked at by its controller, and is not
// ready.
package readiness
