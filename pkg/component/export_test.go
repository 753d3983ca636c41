package component

// WrittenCopies returns how many components the reconciler keeps a copy of
// the last written status of, for reads from a cache that lags behind.
func WrittenCopies[T Component](r *Reconciler[T]) int {
	r.status.mu.Lock()
	defer r.status.mu.Unlock()
	return len(r.status.objects)
}
