// Package managedfields reads and moves the fields of an object's
// managedFields: which entries a server-side apply of the operator takes
// over (the Update writes of the managers it takes over from, and its own
// earlier ones: HasTakeOver), the managedFields with those fields moved
// into the operator's Apply entry, those at ignored paths left with their
// managers (TakeOver), and the transform that keeps managedFields in a
// cache only for the objects that have such entries (Transform).
package managedfields
