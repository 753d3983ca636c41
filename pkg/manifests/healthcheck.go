package manifests

// HealthCheck judges the health of the live objects of one kind with CEL
// expressions, for kinds whose status kstatus cannot read (a custom
// resource that reports status.phase: Running). Each expression sees the
// live object as self and yields a bool; failed is tried first, then
// current, then inProgress; an expression that cannot be evaluated on an
// object (a field it reads is missing) counts as false. When none is true,
// kstatus decides as for any other object.
// +kubebuilder:object:generate=true
type HealthCheck struct {
	// APIVersion of the objects, group/version (v1 for the core group); the
	// check applies to every version of the group.
	// +kubebuilder:validation:MinLength=1
	APIVersion string `json:"apiVersion"`
	// Kind of the objects.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// Current is true when the object is healthy (ready): the next wave may
	// start.
	// +optional
	Current string `json:"current,omitempty"`
	// Failed is true when the object failed: the pass reports it with the
	// object's status.message, if it has one.
	// +optional
	Failed string `json:"failed,omitempty"`
	// InProgress is true while the object is on its way.
	// +optional
	InProgress string `json:"inProgress,omitempty"`
}
