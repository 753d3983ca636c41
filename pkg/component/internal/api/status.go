package api

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// State summarises a component's status.
// +kubebuilder:validation:Enum=Ready;Pending;Processing;DeletionPending;Deleting;Error
type State string

// States of a component.
const (
	StateReady           State = "Ready"
	StatePending         State = "Pending"
	StateProcessing      State = "Processing"
	StateDeletionPending State = "DeletionPending"
	StateDeleting        State = "Deleting"
	StateError           State = "Error"
)

// Condition types of a component, as kstatus reads them.
const (
	// ConditionReady says whether every object is applied and ready.
	ConditionReady = "Ready"
	// ConditionReconciling is True while work is under way or retried.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True on an error that only a change fixes.
	ConditionStalled = "Stalled"
	// ConditionTestSuccess says how the component's tests went, when they
	// are enabled (TestConfiguration): Unknown while they run, True once
	// every test passed, False once one failed.
	ConditionTestSuccess = "TestSuccess"
)

// +kubebuilder:object:generate=true

// Status is embedded by the status of every component type.
type Status struct {
	// ObservedGeneration is the component generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions hold Ready, and Reconciling or Stalled as kstatus reads
	// them; TestSuccess when tests are enabled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// State summarises the conditions.
	// +optional
	State State `json:"state,omitempty"`
	// Inventory lists every object the component applied.
	// +optional
	Inventory []manifests.InventoryItem `json:"inventory,omitempty"`
	// Externals lists the component's dependents outside Kubernetes (a
	// database, a bucket): each recorded before it is created, with the
	// external API's ID as soon as it is known. Their credentials are in
	// Secrets, never here.
	// +optional
	Externals []manifests.ExternalItem `json:"externals,omitempty"`
	// Installed is true once the component has been Ready. Until then every
	// render is an install (Helm's .Release.IsInstall), and so is every
	// render at InstalledGeneration; one at a later generation is an upgrade.
	// +optional
	Installed bool `json:"installed,omitempty"`
	// InstalledGeneration is the generation at which the component was
	// first Ready: a pass that renders it again without a change (a requeue,
	// an event) renders the install, not an upgrade with its hooks.
	// +optional
	InstalledGeneration int64 `json:"installedGeneration,omitempty"`
	// Source says where the objects were last rendered from and applied,
	// when the generator reports it (a chart version, a Git revision).
	// +optional
	Source *manifests.SourceInfo `json:"source,omitempty"`

	// LastTraceID is the OpenTelemetry trace ID of the Reconcile that last
	// wrote this status, when that Reconcile was traced and sampled: look
	// it up in the trace backend to see where its time went.
	// +optional
	LastTraceID string `json:"lastTraceID,omitempty"`

	// LastHandledReconcileAt is the value of the component's annotation
	// <operator>/reconcile-requested-at that the last finished pass acted
	// on, as Flux's status.lastHandledReconcileAt: set it to a new value
	// and wait until this field shows it.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// LastHandledForceAt is the value of the component's annotation
	// <operator>/force that the last forced pass acted on: that pass wrote
	// every object it reached, and the same value never forces twice.
	// +optional
	LastHandledForceAt string `json:"lastHandledForceAt,omitempty"`

	// Attempt is the attempt at the current render: its failures, and
	// whether it was given up for the last Ready render (RemediationConfiguration).
	// +optional
	Attempt *Attempt `json:"attempt,omitempty"`
	// History are the last attempts (HistoryLimit), oldest first: each
	// render's result, Ready, Failed or RolledBack, with its generation,
	// source and digest. Equal consecutive outcomes are one entry.
	// +kubebuilder:validation:MaxItems=10
	// +optional
	History []HistoryEntry `json:"history,omitempty"`
	// LastGoodRender is the last render that was Ready, kept for a rollback
	// when the remediation strategy is Rollback.
	// +optional
	LastGoodRender *StoredRender `json:"lastGoodRender,omitempty"`
}

// IsInstalled tells whether the component has been Ready once. A status
// written before Installed existed counts as installed while it is Ready.
func (s *Status) IsInstalled() bool {
	return s.Installed || meta.IsStatusConditionTrue(s.Conditions, ConditionReady)
}

// ReadyCondition returns the Ready condition, or nil.
func (s *Status) ReadyCondition() *metav1.Condition {
	return meta.FindStatusCondition(s.Conditions, ConditionReady)
}
