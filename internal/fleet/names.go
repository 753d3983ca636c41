package fleet

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// maxComponentName bounds the name of a cluster's Component, so that it
// fits in a label value and leaves room in the names a source derives
// from it.
const maxComponentName = 63

// Keys under the operator name (<operator>/<key>).
const (
	// clusterLabel marks a Secret as a registered cluster ("true").
	clusterLabel = "cluster"
	// clusterAnnotation names, on a Component, its cluster Secret (an
	// annotation: a Secret's name may be longer than a label value).
	clusterAnnotation = "set-cluster"
	// memberAnnotation names, on a Component of a set with spec.inputs,
	// its member (the Component's name when the set made it), and
	// inputAnnotation its input's id.
	memberAnnotation = "set-member"
	inputAnnotation  = "set-input"
	// specHashAnnotation is the digest of the spec the set last wrote.
	specHashAnnotation = "set-spec-hash"
	// waveAnnotation is the cluster wave (1-based) of the Component,
	// which deletion runs in reverse.
	waveAnnotation = "set-wave"
	// finalizerName is the set's finalizer (after the operator name).
	finalizerName = "componentset"
	// leftBehindAnnotation marks, with the time, a Component the set's
	// deletion left behind: its cluster did not answer for longer than
	// spec.unreachableTimeout.
	leftBehindAnnotation = "set-left-behind"
	// copyOfAnnotation names, on the set's copy of a cluster's kubeconfig,
	// the Secret it copies; copyVersionAnnotation is that Secret's UID and
	// resourceVersion when it was copied.
	copyOfAnnotation      = "set-copy-of"
	copyVersionAnnotation = "set-copy-version"
	// copySuffix ends the name of the set's copy of a cluster's kubeconfig:
	// <component>.set.kubeconfig.
	copySuffix = ".set.kubeconfig"
	// copyLabel marks the set's copy of a cluster's kubeconfig ("true"),
	// so that its cache holds the copies alone (clustersecrets.go).
	copyLabel = "set-copy"
)

// keys are the label, annotation and finalizer keys of one operator.
type keys struct {
	cluster, clusterName, specHash, wave, finalizer, leftBehind string
	member, input                                               string
	copy, copyOf, copyVersion                                   string
	// deletePolicy is a Component's own annotation that, set to orphan,
	// ends its deletion without contacting its cluster.
	deletePolicy string
	// request is the annotation that asks a set, and a Component, for a
	// reconcile (component.AnnotationReconcileRequestedAt).
	request string
	// Pulled clusters (pull.go): the cluster Secret's label, the set's
	// labels and the removal time on a ComponentWork, and the in-memory
	// annotations of a view.
	pull, setNamespace, setName, removalRequested, viewOf, silentAt string
}

func keysFor(operator string) keys {
	return keys{
		cluster:          operator + "/" + clusterLabel,
		clusterName:      operator + "/" + clusterAnnotation,
		member:           operator + "/" + memberAnnotation,
		input:            operator + "/" + inputAnnotation,
		specHash:         operator + "/" + specHashAnnotation,
		wave:             operator + "/" + waveAnnotation,
		finalizer:        operator + "/" + finalizerName,
		leftBehind:       operator + "/" + leftBehindAnnotation,
		copy:             operator + "/" + copyLabel,
		copyOf:           operator + "/" + copyOfAnnotation,
		copyVersion:      operator + "/" + copyVersionAnnotation,
		deletePolicy:     manifests.Key(operator, manifests.AnnotationDeletePolicy),
		request:          manifests.Key(operator, component.AnnotationReconcileRequestedAt),
		pull:             operator + "/" + pullLabel,
		setNamespace:     operator + "/" + workSetNamespaceLabel,
		setName:          operator + "/" + workSetNameLabel,
		removalRequested: operator + "/" + removalRequestedAnnotation,
		viewOf:           operator + "/" + viewOfAnnotation,
		silentAt:         operator + "/" + silentAtAnnotation,
	}
}

// componentName is <set>-<cluster>; a longer one than maxComponentName is
// cut and ends in a digest of the whole, so two clusters never share one.
func componentName(set, cluster string) string {
	name := set + "-" + cluster
	if len(name) <= maxComponentName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := hex.EncodeToString(sum[:])[:10]
	head := name[:maxComponentName-len(suffix)-1]
	for len(head) > 0 && (head[len(head)-1] == '-' || head[len(head)-1] == '.') {
		head = head[:len(head)-1]
	}
	return head + "-" + suffix
}

// MemberAnnotation is the annotation of a set's Component of an input that
// names its member (the key of its line in status.clusters).
func MemberAnnotation(operator string) string { return keysFor(operator).member }

// InputAnnotation is the annotation of a set's Component that holds the id
// of its input, for readers such as the status page and the CLI.
func InputAnnotation(operator string) string { return keysFor(operator).input }

// MemberAnnotations are the annotations of a set's Component that name its
// cluster and its wave (1-based), for readers such as the status page.
func MemberAnnotations(operator string) (cluster, wave string) {
	k := keysFor(operator)
	return k.clusterName, k.wave
}
