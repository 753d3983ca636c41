package component

// WrittenCopies returns how many components the reconciler keeps a copy of
// the last written status of, for reads from a cache that lags behind.
func WrittenCopies[T Component](r *Reconciler[T]) int {
	return r.status.Copies()
}

// ObjectWatches returns how many watches of objects that components wait
// for (ObjectDependency) the reconciler's targets have, and how many of
// their goroutines have not returned yet.
func ObjectWatches[T Component](r *Reconciler[T]) (watches, running int) {
	return r.targets.ObjectWatches()
}
