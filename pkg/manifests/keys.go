package manifests

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// KnownKeys are the key suffixes that may follow "<prefix>/" on a rendered
// object: the annotations ParsePolicies reads, and what the applier writes
// on the objects it applies (the owner annotation, the owner label and the
// digest of a recreated object).
var KnownKeys = []string{
	AnnotationApplyOrder, AnnotationOrder, AnnotationPurgeOrder, AnnotationDeleteOrder,
	AnnotationReconcilePolicy, AnnotationUpdatePolicy, AnnotationDeletePolicy, AnnotationDeletePropagation, AnnotationAdoptionPolicy,
	AnnotationStatusHint, AnnotationReapplyInterval, AnnotationDeleteHook, AnnotationTestHook, AnnotationIgnoreFields,
	AnnotationReplacePropagation, AnnotationCRDPolicy,
	AnnotationOwner, LabelOwnerID, AnnotationDigest,
}

// UnknownKeyError says that an object carries an annotation under the
// operator's prefix that wavekit does not know, most often a typo that
// would otherwise be ignored.
type UnknownKeyError struct {
	Object string
	Key    string
	// Suggestion is the known key nearest to Key, or "" when none is near.
	Suggestion string
	Prefix     string
}

func (e *UnknownKeyError) Error() string {
	if e.Suggestion != "" {
		return fmt.Sprintf("%s: unknown annotation %s (did you mean %s?)", e.Object, e.Key, e.Suggestion)
	}
	return fmt.Sprintf("%s: unknown annotation %s (the keys under %s/ are %s)", e.Object, e.Key, e.Prefix, strings.Join(KnownKeys, ", "))
}

// unknownKey returns an error for the first annotation (in key order) under
// prefix whose suffix is not one of KnownKeys, or nil.
func unknownKey(prefix, object string, own []ownAnnotation) error {
	var unknown []string
	for _, a := range own {
		if !slices.Contains(KnownKeys, a.suffix) {
			unknown = append(unknown, a.key)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	err := &UnknownKeyError{Object: object, Key: unknown[0], Prefix: prefix}
	if nearest := nearestKey(strings.TrimPrefix(unknown[0], prefix+"/")); nearest != "" {
		err.Suggestion = Key(prefix, nearest)
	}
	return err
}

// ownAnnotation is an annotation whose key is <prefix>/suffix.
type ownAnnotation struct{ key, suffix, value string }

// ownAnnotations returns the annotations whose keys are under prefix/,
// without building a key: ParsePolicies reads them for every object on
// every pass, and most objects have none.
func ownAnnotations(prefix string, annotations map[string]string) []ownAnnotation {
	var own []ownAnnotation
	for key, value := range annotations {
		if len(key) > len(prefix) && key[len(prefix)] == '/' && strings.HasPrefix(key, prefix) {
			own = append(own, ownAnnotation{key: key, suffix: key[len(prefix)+1:], value: value})
		}
	}
	return own
}

// nearestKey returns the known key suffix closest to suffix by edit
// distance, when it is close enough to be a typo of it (or suffix is the
// start of it), else "".
func nearestKey(suffix string) string {
	best, bestDistance := "", -1
	for _, known := range KnownKeys {
		d := levenshtein.ComputeDistance(suffix, known)
		if bestDistance < 0 || d < bestDistance {
			best, bestDistance = known, d
		}
	}
	if bestDistance <= max(2, len(suffix)/3) {
		return best
	}
	for _, known := range KnownKeys {
		if suffix != "" && strings.HasPrefix(known, suffix) {
			return known
		}
	}
	return ""
}
