// Package dynamic serves a component kind that is known only at run time —
// one whose CRD the program writes while it runs, such as the kinds of the
// reference operator's ComponentDefinitions — with a component.Reconciler
// like any other, on a manager that is already running, and stops serving
// it again.
//
// The component type T is an ordinary Go type (it embeds component.Status
// and says how its spec becomes the generator's parameters), but the kind
// it stands for is given as a GroupVersionKind when it is served: Start
// sets the reconciler up on a view of the manager in which T is that kind.
// In the view, T is read from the manager's cache and written through the
// manager's client as an unstructured object of the kind, converted with
// JSON; everything else goes to the manager as it is. The view's scheme
// holds T as the kind and its list, no more (what Options.AddToScheme
// adds, if anything): the objects the components render and apply are
// named by the manager's scheme, which the view gives as ObjectScheme, so
// that a process holds client-go's scheme once, not once a kind. The reconciler's
// controller (or its lane, when its options name a pool: package pool, for
// a process that serves many kinds) and what it adds to the manager (its
// targets' cleanup, its catch-up) run until Stop, after which the event handlers it added to the
// manager's informers are taken off them and the kind's informer is
// removed from the manager's cache. The kind waits for the informers it
// asked for to sync, not for every informer of the manager. Nothing of the
// manager itself changes: other reconcilers, and other served kinds, do
// not notice.
//
//	r := component.NewReconciler[*Instance]("example.com", generator, options)
//	served, err := dynamic.Start(ctx, mgr, gvk, r, dynamic.Options{})
//	...
//	served.Stop() // the kind is no longer served
package dynamic
