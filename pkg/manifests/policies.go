package manifests

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ObjectPolicies are the wavekit settings of one object, read from its
// annotations with the reconciler's defaults filled in.
type ObjectPolicies struct {
	ApplyOrder  int16
	PurgeOrder  *int16
	DeleteOrder int16
	Reconcile   ReconcilePolicy
	Update      UpdatePolicy
	Delete      DeletePolicy
	// DeletePropagation is background unless the object says foreground.
	DeletePropagation DeletePropagation
	// ReplacePropagation is the propagation of the delete that re-creates
	// the object; default DeletePropagation.
	ReplacePropagation DeletePropagation
	// CRD is the CRD policy; only CustomResourceDefinitions heed it.
	CRD             CRDPolicy
	Adoption        AdoptionPolicy
	StatusHint      StatusHint
	ReapplyInterval time.Duration
	// DeleteHook is pre-delete or post-delete for a delete-only object.
	DeleteHook string
	// TestHook is set on a test: an object only a test run creates.
	TestHook TestHookPolicy
}

// StatusHint tells readiness checks what to look at beyond kstatus.
type StatusHint struct {
	HasObservedGeneration bool
	HasReadyCondition     bool
	Conditions            []string
}

// Defaults are the policies of objects that carry no annotation.
type Defaults struct {
	Reconcile       ReconcilePolicy
	Update          UpdatePolicy
	Delete          DeletePolicy
	Adoption        AdoptionPolicy
	ReapplyInterval time.Duration
	// Namespace says whether missing namespaces are created (default create).
	Namespace NamespacePolicy
	// CRDs is the policy of CustomResourceDefinitions (default CreateReplace).
	CRDs CRDPolicy
}

// WithFallbacks returns d with the built-in default for every policy it
// leaves empty.
func (d Defaults) WithFallbacks() Defaults {
	if d.Reconcile == "" {
		d.Reconcile = ReconcileOnObjectChange
	}
	if d.Update == "" || d.Update == UpdateDefault {
		d.Update = UpdateSSAOverride
	}
	if d.Delete == "" || d.Delete == DeleteDefault {
		d.Delete = DeleteDelete
	}
	if d.Adoption == "" {
		d.Adoption = AdoptIfUnowned
	}
	if d.Namespace == "" {
		d.Namespace = NamespaceCreate
	}
	if d.CRDs == "" {
		d.CRDs = CRDCreateReplace
	}
	return d
}

// AnnotationError says which annotation of which object has a bad value.
type AnnotationError struct {
	Object  string
	Key     string
	Value   string
	Allowed string
}

func (e *AnnotationError) Error() string {
	return fmt.Sprintf("%s: annotation %s has invalid value %q (allowed: %s)", e.Object, e.Key, e.Value, e.Allowed)
}

// ParsePolicies reads the wavekit annotations of an object with the given
// prefix. object names the object in errors. An annotation under the prefix
// that is not one of KnownKeys is an *UnknownKeyError (a typo would
// otherwise be ignored); an invalid value is an *AnnotationError.
func ParsePolicies(prefix, object string, annotations map[string]string, defaults Defaults) (ObjectPolicies, error) {
	own := ownAnnotations(prefix, annotations)
	if err := unknownKey(prefix, object, own); err != nil {
		return ObjectPolicies{}, err
	}
	defaults = defaults.WithFallbacks()
	p := policyParser{object: object, own: own}
	policies := ObjectPolicies{
		ApplyOrder:        p.order(AnnotationApplyOrder, AnnotationOrder),
		PurgeOrder:        p.optionalOrder(AnnotationPurgeOrder),
		DeleteOrder:       p.order(AnnotationDeleteOrder),
		Reconcile:         ReconcilePolicy(p.enum(AnnotationReconcilePolicy, string(defaults.Reconcile), reconcilePolicies)),
		Update:            UpdatePolicy(p.enum(AnnotationUpdatePolicy, string(defaults.Update), updatePolicies)),
		Delete:            DeletePolicy(p.enum(AnnotationDeletePolicy, string(defaults.Delete), deletePolicies)),
		DeletePropagation: DeletePropagation(p.enum(AnnotationDeletePropagation, string(PropagationBackground), deletePropagations)),
		CRD:               CRDPolicy(p.enum(AnnotationCRDPolicy, string(defaults.CRDs), crdPolicies)),
		Adoption:          AdoptionPolicy(p.enum(AnnotationAdoptionPolicy, string(defaults.Adoption), adoptionPolicies)),
		StatusHint:        p.statusHint(),
		ReapplyInterval:   p.duration(AnnotationReapplyInterval, defaults.ReapplyInterval),
		DeleteHook:        p.enum(AnnotationDeleteHook, "", deleteHookEvents),
		TestHook:          TestHookPolicy(p.enum(AnnotationTestHook, "", testHookPolicies)),
	}
	if policies.Update == UpdateDefault {
		policies.Update = defaults.Update
	}
	policies.ReplacePropagation = DeletePropagation(p.enum(AnnotationReplacePropagation, string(policies.DeletePropagation), replacePropagations))
	if policies.Delete == DeleteDefault {
		policies.Delete = defaults.Delete
	}
	if p.err != nil {
		return ObjectPolicies{}, p.err
	}
	return policies, nil
}

var (
	reconcilePolicies   = []string{string(ReconcileOnObjectChange), string(ReconcileOnObjectOrComponentChange), string(ReconcileOnce)}
	updatePolicies      = []string{string(UpdateDefault), string(UpdateReplace), string(UpdateSSAMerge), string(UpdateSSAOverride), string(UpdateRecreate), string(UpdateReplaceOnImmutable)}
	deletePolicies      = []string{string(DeleteDefault), string(DeleteDelete), string(DeleteOrphan), string(DeleteOrphanOnApply), string(DeleteOrphanOnDelete)}
	deletePropagations  = []string{string(PropagationBackground), string(PropagationForeground)}
	replacePropagations = []string{string(PropagationBackground), string(PropagationForeground), string(PropagationOrphan)}
	crdPolicies         = []string{string(CRDCreateReplace), string(CRDCreate), string(CRDSkip)}
	adoptionPolicies    = []string{string(AdoptNever), string(AdoptIfUnowned), string(AdoptAlways)}
	deleteHookEvents    = []string{"pre-delete", "post-delete"}
	testHookPolicies    = []string{string(TestKeep), string(TestDeleteOnSuccess), string(TestDeleteOnFailure), string(TestDelete)}
)

// IsDeleteHook tells whether value is a valid <name>/delete-hook value.
func IsDeleteHook(value string) bool { return slices.Contains(deleteHookEvents, value) }

// IsTestHook tells whether value is a valid <name>/test-hook value.
func IsTestHook(value string) bool { return slices.Contains(testHookPolicies, value) }

// policyParser keeps the first error so that ParsePolicies reads top to bottom.
type policyParser struct {
	object string
	own    []ownAnnotation
	err    error
}

func (p *policyParser) fail(key, value, allowed string) {
	if p.err == nil {
		p.err = &AnnotationError{Object: p.object, Key: key, Value: value, Allowed: allowed}
	}
}

// lookup returns the key and value of the annotation <prefix>/suffix.
func (p *policyParser) lookup(suffix string) (string, string, bool) {
	for _, a := range p.own {
		if a.suffix == suffix {
			return a.key, a.value, true
		}
	}
	return "", "", false
}

func (p *policyParser) order(suffixes ...string) int16 {
	for _, suffix := range suffixes {
		if key, value, ok := p.lookup(suffix); ok {
			return p.parseOrder(key, value)
		}
	}
	return 0
}

func (p *policyParser) optionalOrder(suffix string) *int16 {
	key, value, ok := p.lookup(suffix)
	if !ok {
		return nil
	}
	order := p.parseOrder(key, value)
	return &order
}

func (p *policyParser) parseOrder(key, value string) int16 {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil || n < math.MinInt16 || n > math.MaxInt16 {
		p.fail(key, value, "an integer from -32768 to 32767")
		return 0
	}
	return int16(n)
}

func (p *policyParser) enum(suffix, fallback string, allowed []string) string {
	key, value, ok := p.lookup(suffix)
	if !ok {
		return fallback
	}
	for _, a := range allowed {
		if value == a {
			return value
		}
	}
	p.fail(key, value, strings.Join(allowed, ", "))
	return fallback
}

func (p *policyParser) duration(suffix string, fallback time.Duration) time.Duration {
	key, value, ok := p.lookup(suffix)
	if !ok {
		return fallback
	}
	d, err := time.ParseDuration(value)
	if err != nil || d < 0 {
		p.fail(key, value, "a non-negative Go duration such as 10m or 1h30m")
		return fallback
	}
	return d
}

func (p *policyParser) statusHint() StatusHint {
	key, value, ok := p.lookup(AnnotationStatusHint)
	if !ok {
		return StatusHint{}
	}
	var hint StatusHint
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "has-observed-generation":
			hint.HasObservedGeneration = true
		case part == "has-ready-condition":
			hint.HasReadyCondition = true
		case strings.HasPrefix(part, "conditions=") && len(part) > len("conditions="):
			hint.Conditions = append(hint.Conditions, strings.Split(strings.TrimPrefix(part, "conditions="), ";")...)
		default:
			p.fail(key, value, "a comma-separated list of has-observed-generation, has-ready-condition, conditions=A;B")
			return StatusHint{}
		}
	}
	return hint
}
