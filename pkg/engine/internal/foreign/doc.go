// Package foreign counts the foreign instances that block a deletion: the
// objects of the kinds an owner's CRDs and APIServices serve (its managed
// types, wildcards resolved against the kinds the cluster serves) that the
// owner did not make. Deleting those types would delete them too, so the
// engine does not while one exists, and says which (Describe).
package foreign
