package component

// ObjectDependency is an object of any kind that must be ready before the
// component is applied: by ReadyExpr (CEL on the object, self) when given,
// else by kstatus, as the engine judges its own objects. It is read in the
// component's target cluster, as the component's identity (its service
// account, when it has one), and while the component waits for it, watched
// by name as that identity (which needs list and watch on it): its changes
// move the component on. It is not the component's: nothing waits for it
// on deletion.
type ObjectDependency struct {
	APIVersion, Kind, Namespace, Name string
	ReadyExpr                         string
}

// ObjectDependencyConfiguration names the objects a component waits for,
// besides the components of DependencyConfiguration. A dependency without a
// namespace is in the component's own namespace (cluster-scoped kinds have
// none).
type ObjectDependencyConfiguration interface {
	GetObjectDependencies() []ObjectDependency
}
