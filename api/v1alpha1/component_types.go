package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ComponentSpec says which source to install and with which values.
// +kubebuilder:validation:XValidation:rule="(has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 1",messageExpression="(has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 0 ? 'none of spec.source, spec.chart, spec.sourceRef and spec.git is set: give exactly one' : ((has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 2 && has(self.source) && has(self.chart)) ? 'spec.source and spec.chart are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git' : ((has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 2 && has(self.source) && has(self.sourceRef)) ? 'spec.source and spec.sourceRef are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git' : ((has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 2 && has(self.source) && has(self.git)) ? 'spec.source and spec.git are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git' : ((has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 2 && has(self.chart) && has(self.sourceRef)) ? 'spec.chart and spec.sourceRef are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git' : ((has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 2 && has(self.chart) && has(self.git)) ? 'spec.chart and spec.git are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git' : ((has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 2 && has(self.sourceRef) && has(self.git)) ? 'spec.sourceRef and spec.git are both set: give exactly one of spec.source, spec.chart, spec.sourceRef and spec.git' : 'more than two of spec.source, spec.chart, spec.sourceRef and spec.git are set: give exactly one of them'"
// +kubebuilder:validation:XValidation:rule="!has(self.path) || has(self.sourceRef)",message="spec.path is a directory inside the artifact of spec.sourceRef: set it only with spec.sourceRef"
type ComponentSpec struct {
	// Source names one of the sources the operator serves (its --source
	// flag). Give exactly one of source, chart, sourceRef and git.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Source string `json:"source,omitempty"`
	// Chart is a Helm chart from a Helm repository or an OCI registry.
	// Give exactly one of source, chart, sourceRef and git.
	// +optional
	Chart *ChartSource `json:"chart,omitempty"`
	// SourceRef is a Flux source-controller object whose artifact holds the
	// chart, kustomization or templates, at spec.path. Give exactly one of
	// source, chart, sourceRef and git.
	// +optional
	SourceRef *SourceReference `json:"sourceRef,omitempty"`
	// Git is a path of a Git repository, which the operator reads itself:
	// a Helm chart, a kustomization or Go templates at the commit a ref
	// names. Give exactly one of source, chart, sourceRef and git.
	// +optional
	Git *GitSource `json:"git,omitempty"`
	// Path is the directory inside the artifact of sourceRef that holds a
	// Helm chart (Chart.yaml), a kustomization or Go templates; default: the
	// artifact's root. Kustomize bases elsewhere in the artifact may be used.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^/]`
	// +optional
	Path string `json:"path,omitempty"`
	// Values are passed to the source as parameters (Helm values, template
	// data). They are merged over the values of valuesFrom.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *apiextensionsv1.JSON `json:"values,omitempty"`
	// ValuesFrom are ConfigMaps and Secrets of the Component's namespace, and
	// values files of Git repositories, whose values are merged in order,
	// and then overlaid by spec.values. A change to one of them is applied
	// at once (a repository's at its interval).
	// +kubebuilder:validation:MaxItems=32
	// +optional
	ValuesFrom []ValuesReference `json:"valuesFrom,omitempty"`
	// DependsOn are Components that must be Ready, at their current
	// generation, before this one is applied; none of them is deleted while
	// this Component exists.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	DependsOn []DependencyReference `json:"dependsOn,omitempty"`
	// Patches are kustomize patches (strategic merge or JSON 6902) applied to
	// the rendered objects, in order, as Flux's post-renderers do. A patch
	// whose target matches no object is an error.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Patches []Patch `json:"patches,omitempty"`
	// Namespace is where the objects go; defaults to the Component's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name is the release name; defaults to the Component's name.
	// +optional
	Name string `json:"name,omitempty"`
	// KubeConfig points to a Secret with a kubeconfig of a remote target cluster.
	// +optional
	KubeConfig *SecretKeyReference `json:"kubeConfig,omitempty"`
	// ServiceAccountName names a service account of the Component's namespace
	// that every read and write of the target is made as.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// Suspend stops applying; deletion still works.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
	// Policies are defaults for objects that carry no policy annotation.
	// +optional
	Policies Policies `json:"policies,omitempty"`
	// CRDs says how the CustomResourceDefinitions the source ships are
	// applied: CreateReplace (the default) creates and updates them, Create
	// creates missing ones and never updates them, Skip never creates,
	// updates or deletes them (one installed earlier leaves the inventory and
	// stays). Whatever the policy, an update that drops a version still in
	// the live CRD's status.storedVersions is refused before anything is
	// written. A CRD's own <operator>/crd-policy annotation wins.
	// +kubebuilder:validation:Enum=Create;CreateReplace;Skip
	// +optional
	CRDs manifests.CRDPolicy `json:"crds,omitempty"`
	// Intervals tune requeue, retry, timeout and reapply.
	// +optional
	Intervals Intervals `json:"intervals,omitempty"`
	// Drift says what happens when others change the objects: whether the
	// change is corrected (mode Correct, the default), reported in the
	// Drifted condition and an Event (Warn) or not looked for (Disabled),
	// and which fields are left to other writers (ignore).
	// +optional
	Drift manifests.DriftSettings `json:"drift,omitempty"`
	// HealthChecks judge the objects of kinds whose status kstatus cannot
	// read, with CEL expressions on the live object (self): failed, then
	// current, then inProgress; when none is true and current is given the
	// object is in progress, without checks kstatus decides. They are used
	// wave by wave: the next wave starts only when every object of a wave is
	// current. An expression that does not compile makes the Component
	// Stalled at once with the error, before anything is written.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	HealthChecks []manifests.HealthCheck `json:"healthChecks,omitempty"`
	// Remediation says what happens when an attempt at a render fails (an
	// object failed or was refused, or it was not ready within the
	// timeout): how often it is tried again (retries) and then whether the
	// last render that was Ready is applied again (strategy Rollback). That
	// render is kept, gzipped, in the Secret <name>.component.render of the
	// Component's namespace, which the Component owns; status.history
	// records every attempt.
	// +optional
	Remediation *component.Remediation `json:"remediation,omitempty"`
	// Test runs the source's tests (Helm's test hooks: helm.sh/hook: test,
	// or objects annotated wavekit.dev/test-hook) after each install or
	// upgrade, once its objects are applied and ready, as helm-controller's
	// spec.test and helm test do. The TestSuccess condition says how they
	// went; a failed test makes Ready False (reason TestFailed) naming the
	// test, unless ignoreFailures. Tests are never applied with the other
	// objects, whether or not they run.
	// +optional
	Test *component.Test `json:"test,omitempty"`
	// Decryption decrypts SOPS-encrypted objects of the source (every
	// object that carries sops metadata, such as a Secret encrypted with
	// --encrypted-regex '^(data|stringData)$') before they are applied, and
	// SOPS-encrypted values of valuesFrom before rendering. Decrypted values
	// stay in memory and in the objects applied. Without it, an encrypted
	// object is refused.
	// +optional
	Decryption *Decryption `json:"decryption,omitempty"`
	// ChartDependencies says how the dependencies a chart lists in its
	// Chart.yaml but does not hold in charts/ are fetched (a chart kept in
	// Git or a folder usually holds none): they always are, from the
	// repositories Chart.yaml names, with the credentials of the
	// repository Secrets of the Component's namespace; this only adds a
	// check of who made them.
	// +optional
	ChartDependencies *ChartDependencies `json:"chartDependencies,omitempty"`
	// AdditionalManagedTypes are types whose foreign instances block deletion,
	// besides the component's own CRDs and APIServices.
	// +optional
	AdditionalManagedTypes []manifests.TypeInfo `json:"additionalManagedTypes,omitempty"`
}

// ChartSource is a Helm chart in a repository.
// +kubebuilder:validation:XValidation:rule="!has(self.verify) || (self.verify.provider == 'cosign') == self.repository.startsWith('oci://')",message="spec.chart.verify: provider cosign verifies charts of OCI registries (oci://), provider helm charts of Helm repositories (https://)"
type ChartSource struct {
	// Repository is a Helm repository, https://… (its index.yaml is read),
	// or an OCI registry, oci://host/path (the chart is host/path/name).
	// +kubebuilder:validation:Pattern=`^(https?|oci)://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	Repository string `json:"repository"`
	// Name of the chart.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Version is a semver constraint: "1.2.3", "~1.2", "^1", ">=1.0.0 <2.0.0".
	// Empty means the latest stable version. The repository is asked again
	// for new versions at the requeue interval.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Version string `json:"version,omitempty"`
	// SecretRef names a Secret in the Component's namespace with the keys
	// username and password, and optionally ca.crt (a PEM bundle trusted
	// besides the system's roots).
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
	// Insecure reaches an OCI registry over plain HTTP, without TLS. Only
	// for registries on a trusted network, such as a local test registry.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
	// Verify makes the operator check who made the chart before it is
	// loaded or rendered: a chart that fails the check renders nothing and
	// changes nothing (Ready False, reason VerificationFailed), and the
	// SourceVerified condition says what was verified with which key.
	// +optional
	Verify *ChartVerification `json:"verify,omitempty"`
}

// ChartVerification says how a chart's signature is checked.
type ChartVerification struct {
	// Provider is how the chart is signed. cosign: a chart of an OCI
	// registry (oci://), signed with cosign's key mode; the signature is a
	// Sigstore bundle attached as an OCI referrer (what cosign v3 writes) or
	// a tag sha256-<digest>.sig (what earlier cosign releases write), over
	// the digest of the chart's manifest. helm: a chart of a Helm
	// repository (https://), with a provenance file <chart>.tgz.prov signed
	// with a PGP key, as `helm package --sign` writes it and `helm install
	// --verify` checks it. Keyless (certificate) signatures are not
	// supported yet.
	// +kubebuilder:validation:Enum=cosign;helm
	Provider string `json:"provider"`
	// SecretRef names a Secret in the Component's namespace that holds the
	// trusted keys. For cosign, every key whose name ends in .pub is a PEM
	// public key (cosign.pub); for helm, every key whose name ends in .gpg
	// is a PGP keyring, binary or ASCII-armored (pubring.gpg). Any one key
	// that verifies the signature suffices; keys of other names are
	// ignored, and a Secret with no such key is an error that says so.
	SecretRef LocalObjectReference `json:"secretRef"`
}

// ChartDependencies says how a chart's dependencies are fetched.
type ChartDependencies struct {
	// Verify checks each dependency fetched from a repository or registry
	// before it is loaded or rendered: one that fails renders nothing and
	// changes nothing (Ready False, reason VerificationFailed). A file://
	// dependency comes with the source and is not checked here.
	// +optional
	Verify *DependencyVerification `json:"verify,omitempty"`
}

// DependencyVerification says which keys a chart's dependencies are
// verified with.
type DependencyVerification struct {
	// SecretRef names a Secret in the Component's namespace that holds the
	// trusted keys: every key whose name ends in .pub is a cosign public
	// key (PEM), which verifies dependencies of OCI registries (oci://);
	// every key whose name ends in .gpg is a PGP keyring, which verifies
	// the provenance files (<chart>.tgz.prov) of dependencies of Helm
	// repositories (https://). A dependency of a kind the Secret holds no
	// key for is refused.
	SecretRef LocalObjectReference `json:"secretRef"`
}

// Decryption says how SOPS-encrypted objects and values are decrypted.
type Decryption struct {
	// Provider is the only decryption provider, sops. age keys are
	// supported; PGP keys and cloud key services are not (yet).
	// +kubebuilder:validation:Enum=sops
	Provider string `json:"provider"`
	// SecretRef names a Secret in the Component's namespace whose keys
	// ending in .agekey hold age identities (AGE-SECRET-KEY-1...), one or
	// more per key, as age-keygen writes them; any one that matches a
	// recipient of a file decrypts it. Keys named otherwise (age.key, for
	// instance) are ignored. It is read as the Component's identity.
	SecretRef LocalObjectReference `json:"secretRef"`
}

// LocalObjectReference names an object in the Component's namespace.
type LocalObjectReference struct {
	// Name of the object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// SourceReference names a Flux source-controller object.
type SourceReference struct {
	// Kind of the source: GitRepository, OCIRepository, Bucket, HelmChart or
	// ExternalArtifact (group source.toolkit.fluxcd.io).
	// +kubebuilder:validation:Enum=GitRepository;OCIRepository;Bucket;HelmChart;ExternalArtifact
	Kind string `json:"kind"`
	// Name of the source.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Namespace of the source; default: the Component's namespace. The
	// operator may refuse other namespaces (--no-cross-namespace-refs).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// ValuesReference takes values from a key of a ConfigMap or Secret in the
// Component's namespace, or from a values file of a Git repository.
// +kubebuilder:validation:XValidation:rule="self.kind == 'Git' ? (has(self.git) && has(self.git.path) && !has(self.name) && !has(self.valuesKey)) : (has(self.name) && !has(self.git))",message="a valuesFrom entry of kind Git names its file with git.url and git.path (and no name or valuesKey); one of kind ConfigMap or Secret names the object with name (and no git)"
type ValuesReference struct {
	// Kind is ConfigMap, Secret or Git.
	// +kubebuilder:validation:Enum=ConfigMap;Secret;Git
	Kind string `json:"kind"`
	// Name of the ConfigMap or Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
	// ValuesKey is the key that holds the values; default values.yaml.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	ValuesKey string `json:"valuesKey,omitempty"`
	// Git is, for kind Git, the repository and the values file (git.path)
	// at the commit its ref names, read as spec.git is read.
	// +optional
	Git *GitSource `json:"git,omitempty"`
	// TargetPath sets the key's content, as a single value, at this path of
	// the values (Helm's --set syntax, e.g. auth.password) instead of merging
	// it as YAML.
	// +kubebuilder:validation:MaxLength=250
	// +optional
	TargetPath string `json:"targetPath,omitempty"`
	// Optional lets the object, the key or the file be missing: it is
	// skipped.
	// +optional
	Optional bool `json:"optional,omitempty"`
}

// DependencyReference names a Component this one depends on.
type DependencyReference struct {
	// APIVersion and Kind name an object of any kind to wait for; without
	// them the dependency is a Component (Ready at its current generation,
	// and not deleted while this Component exists).
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind of the object; see apiVersion.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name of the Component or object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Namespace of the Component or object; default: this Component's
	// namespace (none for cluster-scoped kinds). The operator may refuse
	// other namespaces (--no-cross-namespace-refs).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// ReadyExpr is a CEL expression on the object (self) that is true once
	// it is ready, for an object that is not a Component; without it,
	// kstatus decides. The object is read in the target cluster as the
	// Component's identity; an expression that does not compile makes the
	// Component Stalled.
	// +optional
	ReadyExpr string `json:"readyExpr,omitempty"`
}

// Patch is a kustomize patch applied to the rendered objects.
type Patch struct {
	// Patch is a strategic merge patch (an object) or a JSON 6902 patch (a
	// list of operations), in YAML or JSON.
	// +kubebuilder:validation:MinLength=1
	Patch string `json:"patch"`
	// Target selects the objects to patch; without it, a strategic merge
	// patch applies to the object of its kind and name.
	// +optional
	Target *manifests.ObjectSelector `json:"target,omitempty"`
}

// PatchSelector selects objects as kustomize's patch target does.
//
// Deprecated: it is manifests.ObjectSelector, which Patch.Target now names;
// use that.
type PatchSelector = manifests.ObjectSelector

// SecretKeyReference names a key of a Secret in the Component's namespace.
type SecretKeyReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key defaults to "value".
	// +optional
	Key string `json:"key,omitempty"`
}

// Policies are defaults for the objects of a component.
type Policies struct {
	// Update is how an object that exists is written: ssa-override (the
	// default) applies it server-side and takes over only what kubectl's
	// hand edits wrote, so other writers' fields (a restart's annotation, a
	// controller's label) stay; ssa-merge takes over nothing but wavekit's
	// own earlier PUTs; replace PUTs the rendered object, dropping what
	// others set; recreate deletes and creates it on every change;
	// replace-on-immutable applies it and re-creates it only when an
	// immutable field changed. An object's update-policy annotation wins.
	// +kubebuilder:validation:Enum=default;replace;ssa-merge;ssa-override;recreate;replace-on-immutable
	// +optional
	Update manifests.UpdatePolicy `json:"update,omitempty"`
	// +kubebuilder:validation:Enum=default;delete;orphan;orphan-on-apply;orphan-on-delete
	// +optional
	Delete manifests.DeletePolicy `json:"delete,omitempty"`
	// +kubebuilder:validation:Enum=never;if-unowned;always
	// +optional
	Adoption manifests.AdoptionPolicy `json:"adoption,omitempty"`
	// Namespace says whether a namespace the objects need, and that neither
	// the source nor the cluster has, is created (create, the default: it is
	// recorded in the inventory and never deleted with the Component) or
	// refused (do-not-create: Ready=False names the object and the namespace).
	// +kubebuilder:validation:Enum=create;do-not-create
	// +optional
	Namespace manifests.NamespacePolicy `json:"namespace,omitempty"`
}

// Intervals tune how often the operator looks again.
type Intervals struct {
	// Requeue is how long after success the Component is looked at again,
	// and how often a chart repository is asked for new versions (default 10m).
	// +optional
	Requeue *metav1.Duration `json:"requeue,omitempty"`
	// Retry is how long after a retriable error the Component is tried again (default 10s).
	// +optional
	Retry *metav1.Duration `json:"retry,omitempty"`
	// Timeout is how long the Component may take to become ready before it
	// reports Timeout (default 10m).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// Reapply applies every object again after this long, even unchanged (default off).
	// +optional
	Reapply *metav1.Duration `json:"reapply,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Component is one installation of a source served by the reference operator.
type Component struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ComponentSpec    `json:"spec,omitempty"`
	Status component.Status `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ComponentList is a list of Components.
type ComponentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Component `json:"items"`
}
