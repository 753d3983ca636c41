package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ComponentDefinitionSpec defines a kind of its own for a source: a CRD the
// operator writes, whose every instance is installed as a Component of the
// source would be, with the instance's spec as the values.
// +kubebuilder:validation:XValidation:rule="self.group == oldSelf.group && self.names.kind == oldSelf.names.kind && self.names.plural == oldSelf.names.plural && self.version == oldSelf.version",message="spec.group, spec.version, spec.names.kind and spec.names.plural name the kind the definition serves: they cannot change; define another kind instead"
type ComponentDefinitionSpec struct {
	// Group is the API group of the kind, a DNS subdomain with at least one
	// dot, such as platform.example.com. Groups of Kubernetes
	// (*.k8s.io, *.kubernetes.io) and of the operator (wavekit.dev) are
	// refused, and so is a group the operator is not allowed to serve
	// (its --definition-groups).
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`
	Group string `json:"group"`
	// Version is the API version of the kind (default v1alpha1).
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^v[0-9]+((alpha|beta)[0-9]+)?$`
	// +kubebuilder:default=v1alpha1
	// +optional
	Version string `json:"version,omitempty"`
	// Names of the kind.
	Names DefinitionNames `json:"names"`
	// PrinterColumns are the columns kubectl get shows of an instance,
	// after Ready, State and Revision and before Age. A JSONPath is relative
	// to the instance: .spec.size.
	// +kubebuilder:validation:MaxItems=16
	// +optional
	PrinterColumns []apiextensionsv1.CustomResourceColumnDefinition `json:"printerColumns,omitempty"`
	// Source is what every instance installs: a source the operator
	// serves, a chart of a Helm repository or an OCI registry, a path of a
	// Git repository, or the artifact of a Flux source. The allow-lists apply as they do to
	// Components, and a chart's signature is checked before a revision is
	// made of it.
	Source DefinitionSource `json:"source"`
	// Schema is the schema of an instance's spec. Without it, the source's
	// values.schema.json is made into one.
	// +optional
	Schema *DefinitionSchema `json:"schema,omitempty"`
	// Values says how an instance's spec becomes the source's values.
	// Without it, the spec is the values.
	// +optional
	Values *ValuesMapping `json:"values,omitempty"`
	// Instances are the settings every instance is installed with, those of
	// a Component.
	// +optional
	Instances InstanceSettings `json:"instances,omitempty"`
	// Rollout says how instances move to a new revision.
	// +optional
	Rollout DefinitionRollout `json:"rollout,omitempty"`
}

// DefinitionNames name a defined kind, as a CRD's names do.
type DefinitionNames struct {
	// Kind is the kind, CamelCase: Postgres.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][a-zA-Z0-9]*$`
	Kind string `json:"kind"`
	// Plural is the resource, lowercase: postgreses. The definition's name
	// is <plural>.<group>, as a CRD's is.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Plural string `json:"plural"`
	// Singular is the singular resource (default: the kind, lowercase).
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Singular string `json:"singular,omitempty"`
	// ShortNames are kubectl's abbreviations: pg.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	ShortNames []string `json:"shortNames,omitempty"`
	// Categories group kinds for kubectl get <category>; "all" is refused.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Categories []string `json:"categories,omitempty"`
}

// DefinitionSource is the source of a defined kind: one of source, chart
// and sourceRef.
// +kubebuilder:validation:XValidation:rule="(has(self.source) ? 1 : 0) + (has(self.chart) ? 1 : 0) + (has(self.sourceRef) ? 1 : 0) + (has(self.git) ? 1 : 0) == 1",message="give exactly one of spec.source.source, spec.source.chart, spec.source.git and spec.source.sourceRef"
// +kubebuilder:validation:XValidation:rule="!has(self.path) || has(self.sourceRef)",message="spec.source.path is a directory inside the artifact of spec.source.sourceRef: set it only with sourceRef"
// +kubebuilder:validation:XValidation:rule="!has(self.sourceRef) || has(self.sourceRef.namespace)",message="spec.source.sourceRef.namespace is required: a definition has no namespace of its own"
// +kubebuilder:validation:XValidation:rule="!has(self.chart) || !(has(self.chart.secretRef) || has(self.chart.verify)) || has(self.secretsNamespace)",message="spec.source.secretsNamespace is required with chart.secretRef or chart.verify: it holds the Secrets they name"
// +kubebuilder:validation:XValidation:rule="!has(self.git) || !(has(self.git.secretRef) || has(self.git.proxySecretRef) || has(self.git.verify)) || has(self.secretsNamespace)",message="spec.source.secretsNamespace is required with git.secretRef, git.proxySecretRef or git.verify: it holds the Secrets they name"
type DefinitionSource struct {
	// Source names one of the sources the operator serves (its --source flag).
	// +kubebuilder:validation:MinLength=1
	// +optional
	Source string `json:"source,omitempty"`
	// Chart is a Helm chart from a Helm repository or an OCI registry. Its
	// version may be a constraint: each version it resolves to is a
	// revision of the definition, and instances render that exact version.
	// +optional
	Chart *ChartSource `json:"chart,omitempty"`
	// Git is a path of a Git repository at the commit a ref names; each
	// commit it resolves to is a revision of the definition.
	// +optional
	Git *GitSource `json:"git,omitempty"`
	// SourceRef is a Flux source whose artifact holds the chart,
	// kustomization or templates, at path.
	// +optional
	SourceRef *SourceReference `json:"sourceRef,omitempty"`
	// Path is the directory inside the artifact of sourceRef.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^/]`
	// +optional
	Path string `json:"path,omitempty"`
	// SecretsNamespace holds the Secrets that chart.secretRef,
	// chart.verify.secretRef and git's Secrets name; the operator reads
	// them as itself.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	SecretsNamespace string `json:"secretsNamespace,omitempty"`
}

// DefinitionSchema is the schema of a defined kind's spec.
// +kubebuilder:validation:XValidation:rule="!(has(self.jsonSchema) && has(self.file))",message="give spec.schema.jsonSchema or spec.schema.file, not both"
type DefinitionSchema struct {
	// JSONSchema is the schema, a JSON Schema (as values.schema.json is),
	// made into the CRD's structural schema like the source's would be.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	JSONSchema *apiextensionsv1.JSON `json:"jsonSchema,omitempty"`
	// File is a JSON Schema file of the source, relative to its root, to
	// use instead of values.schema.json.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^/]`
	// +optional
	File string `json:"file,omitempty"`
}

// ValuesMapping says how an instance's spec becomes the source's values.
type ValuesMapping struct {
	// Fixed are values every instance gets, under what its spec gives.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	Fixed *apiextensionsv1.JSON `json:"fixed,omitempty"`
	// Fields map fields of an instance's spec to values. With fields, only
	// the fields they name become values; without, the whole spec does.
	// A field the schema lacks is refused.
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Fields []FieldMapping `json:"fields,omitempty"`
}

// FieldMapping maps one field of an instance's spec to a value.
type FieldMapping struct {
	// From is the field of the spec, a dotted path: storage.size.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*$`
	From string `json:"from"`
	// To is where it goes in the values, a dotted path (default: from).
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*$`
	// +optional
	To string `json:"to,omitempty"`
}

// InstanceSettings are what a Component says besides its source and
// values, for every instance of a defined kind: its objects go to the
// instance's namespace, under the instance's name.
type InstanceSettings struct {
	// ServiceAccountName names a service account of each instance's
	// namespace that every read and write of its objects is made as. With
	// the operator's lockdown (--default-service-account) and no name here,
	// the lockdown's account is used, as for Components.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// Policies are defaults for objects that carry no policy annotation.
	// +optional
	Policies Policies `json:"policies,omitempty"`
	// CRDs says how CustomResourceDefinitions the source ships are applied.
	// +kubebuilder:validation:Enum=Create;CreateReplace;Skip
	// +optional
	CRDs manifests.CRDPolicy `json:"crds,omitempty"`
	// Intervals tune requeue, retry, timeout and reapply.
	// +optional
	Intervals Intervals `json:"intervals,omitempty"`
	// Drift says what happens when others change the objects.
	// +optional
	Drift manifests.DriftSettings `json:"drift,omitempty"`
	// HealthChecks judge objects with CEL, wave by wave, as a Component's
	// do; an instance is Ready only once they pass, which is what a
	// rollout's waves wait for.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	HealthChecks []manifests.HealthCheck `json:"healthChecks,omitempty"`
	// Remediation retries a failed attempt and may roll back to the last
	// Ready render, as a Component's does.
	// +optional
	Remediation *component.Remediation `json:"remediation,omitempty"`
	// Test runs the source's tests after each install or upgrade.
	// +optional
	Test *component.Test `json:"test,omitempty"`
	// Patches are kustomize patches applied to every instance's objects.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Patches []Patch `json:"patches,omitempty"`
	// AdditionalManagedTypes are types whose foreign instances block an
	// instance's deletion.
	// +optional
	AdditionalManagedTypes []manifests.TypeInfo `json:"additionalManagedTypes,omitempty"`
}

// DefinitionRollout says how instances move to a new revision: wave by
// wave, each wave once the one before it is Ready at the new revision,
// stopping at the first instance that fails.
type DefinitionRollout struct {
	// Waves are taken in order; the instances no wave takes make a last
	// one. Without waves, every instance moves at once.
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Waves []RolloutWave `json:"waves,omitempty"`
	// Paused holds every instance at the revision it runs; a new instance
	// gets the revision the others had before the rollout began.
	// +optional
	Paused bool `json:"paused,omitempty"`
}

// RolloutWave selects the instances of one wave: those its selector
// matches, at most count of them (a number, or a percentage of all
// instances, rounded up), in the order of their namespace and name.
// +kubebuilder:validation:XValidation:rule="has(self.selector) || has(self.count)",message="a wave has a selector, a count, or both"
type RolloutWave struct {
	// Name names the wave in the status (default: wave-<n>).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Name string `json:"name,omitempty"`
	// Selector selects the wave's instances by their labels.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Count bounds the wave: a number (2) or a percentage of all instances
	// ("25%").
	// +kubebuilder:validation:XIntOrString
	// +optional
	Count *intstr.IntOrString `json:"count,omitempty"`
}

// ComponentDefinitionStatus says what the definition serves and where its
// rollout is.
type ComponentDefinitionStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions hold Ready (the kind is served and every instance runs
	// the newest revision, pinned ones aside), Reconciling while a rollout
	// goes on, and Stalled when the definition is refused or its rollout
	// halted.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// APIVersion and Kind are what the definition serves, once it does.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the kind served.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Revision is the newest revision (1 is the first).
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// Revisions are the revisions instances run, and the newest one, newest
	// first, with how many instances run each.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Revisions []RevisionSummary `json:"revisions,omitempty"`
	// Instances is the number of instances of the kind.
	// +optional
	Instances int32 `json:"instances,omitempty"`
	// ReadyInstances are Ready at the revision they should run.
	// +optional
	ReadyInstances int32 `json:"readyInstances,omitempty"`
	// Rollout is where the move to the newest revision is.
	// +optional
	Rollout *DefinitionRolloutStatus `json:"rollout,omitempty"`
	// Dropped are the keywords of the source's schema the CRD cannot hold,
	// with what it does instead, at most 50.
	// +kubebuilder:validation:MaxItems=51
	// +optional
	Dropped []string `json:"dropped,omitempty"`
}

// RevisionSummary sums one revision up.
type RevisionSummary struct {
	// Revision is the revision's number.
	Revision int64 `json:"revision"`
	// Source is what it renders: a chart's URL and version, an artifact's
	// revision, a served source's digest.
	// +optional
	Source string `json:"source,omitempty"`
	// Created is when it was made.
	// +optional
	Created metav1.Time `json:"created,omitempty"`
	// Instances run it.
	// +optional
	Instances int32 `json:"instances,omitempty"`
}

// RolloutPhase is where a rollout is.
type RolloutPhase string

// Rollout phases.
const (
	// RolloutProgressing moves instances wave by wave.
	RolloutProgressing RolloutPhase = "Progressing"
	// RolloutPaused holds them where they are (spec.rollout.paused).
	RolloutPaused RolloutPhase = "Paused"
	// RolloutHalted stopped at an instance that failed at the new revision.
	RolloutHalted RolloutPhase = "Halted"
	// RolloutComplete: every instance runs the newest revision (pinned ones aside).
	RolloutComplete RolloutPhase = "Complete"
)

// DefinitionRolloutStatus is where the move to a revision is.
type DefinitionRolloutStatus struct {
	// Revision is the revision instances move to.
	Revision int64 `json:"revision"`
	// From is the revision they ran before, which new instances get until
	// the rollout is complete.
	// +optional
	From int64 `json:"from,omitempty"`
	// Phase is Progressing, Paused, Halted or Complete.
	Phase RolloutPhase `json:"phase"`
	// Wave is the last wave allowed to move (1-based); Waves when complete.
	// +optional
	Wave int32 `json:"wave,omitempty"`
	// Waves is the number of waves.
	// +optional
	Waves int32 `json:"waves,omitempty"`
	// WaveNames are the waves' names, in order.
	// +kubebuilder:validation:MaxItems=17
	// +optional
	WaveNames []string `json:"waveNames,omitempty"`
	// Failed is the instance the rollout halted at, and why.
	// +optional
	Failed *DefinitionRolloutFailure `json:"failed,omitempty"`
	// Message says what the rollout waits for.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`
}

// DefinitionRolloutFailure names the instance a rollout halted at.
type DefinitionRolloutFailure struct {
	// Instance is namespace/name.
	Instance string `json:"instance"`
	// Reason is the reason of its Ready condition.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is its message.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cdef
// +kubebuilder:subresource:status
// +kubebuilder:validation:XValidation:rule="self.metadata.name == self.spec.names.plural + '.' + self.spec.group",message="the name of a ComponentDefinition is <spec.names.plural>.<spec.group>, as its CRD's is"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="the name of a ComponentDefinition, <spec.names.plural>.<spec.group>, is at most 63 characters: it is the value of the labels on what the operator writes for it"
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.names.kind`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.status.revision`
// +kubebuilder:printcolumn:name="Rollout",type=string,JSONPath=`.status.rollout.phase`
// +kubebuilder:printcolumn:name="Instances",type=integer,JSONPath=`.status.instances`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ComponentDefinition defines a kind served by the operator: a CRD whose
// instances are installed from one source, each as a Component would be.
type ComponentDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ComponentDefinitionSpec   `json:"spec"`
	Status ComponentDefinitionStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ComponentDefinitionList is a list of ComponentDefinitions.
type ComponentDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ComponentDefinition `json:"items"`
}

// ComponentDefinitionRevisionSpec is one state of a definition, fixed:
// the source resolved to one version and digest, the schema made of it,
// the values mapping and the instances' settings.
type ComponentDefinitionRevisionSpec struct {
	// Definition is the name of the ComponentDefinition.
	Definition string `json:"definition"`
	// Revision is the number, 1 for the first.
	// +kubebuilder:validation:Minimum=1
	Revision int64 `json:"revision"`
	// Source is the definition's source, a chart's version pinned to the
	// one resolved.
	Source DefinitionSource `json:"source"`
	// Resolved is what the source resolved to.
	Resolved ResolvedSource `json:"resolved"`
	// Schema is the structural schema of an instance's spec.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Schema apiextensionsv1.JSON `json:"schema"`
	// Values is the definition's values mapping.
	// +optional
	Values *ValuesMapping `json:"values,omitempty"`
	// Instances are the definition's instance settings.
	// +optional
	Instances InstanceSettings `json:"instances,omitempty"`
	// Digest identifies the content: a definition whose content has this
	// digest needs no new revision.
	Digest string `json:"digest"`
}

// ResolvedSource is what a source resolved to when a revision was made.
type ResolvedSource struct {
	// URL is where it came from.
	// +optional
	URL string `json:"url,omitempty"`
	// Revision is the chart's version, the artifact's revision, or a served
	// source's name.
	// +optional
	Revision string `json:"revision,omitempty"`
	// Digest is the digest of its content; an instance's render refuses
	// other content.
	Digest string `json:"digest"`
	// Verified says how its signature was verified, if it was.
	// +optional
	Verified string `json:"verified,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cdefrev
// +kubebuilder:validation:XValidation:rule="self.spec == oldSelf.spec",message="a ComponentDefinitionRevision is immutable: change the ComponentDefinition, which makes a new revision"
// +kubebuilder:printcolumn:name="Definition",type=string,JSONPath=`.spec.definition`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.spec.revision`
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=`.spec.resolved.revision`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ComponentDefinitionRevision is an immutable, numbered state of a
// ComponentDefinition; each instance records the revision it runs.
type ComponentDefinitionRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ComponentDefinitionRevisionSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// ComponentDefinitionRevisionList is a list of ComponentDefinitionRevisions.
type ComponentDefinitionRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ComponentDefinitionRevision `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &ComponentDefinition{}, &ComponentDefinitionList{},
			&ComponentDefinitionRevision{}, &ComponentDefinitionRevisionList{})
		return nil
	})
}
