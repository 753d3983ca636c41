package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// HistoryLimit is how many attempts Status.History keeps, newest last.
const HistoryLimit = 10

// HistoryEntry is one attempt at a render, as Status.History records it.
// +kubebuilder:object:generate=true
type HistoryEntry struct {
	// Generation of the component.
	Generation int64 `json:"generation"`
	// Source is the source's URL, revision and digest, when the generator
	// reports them.
	// +optional
	Source *manifests.SourceInfo `json:"source,omitempty"`
	// RenderDigest is the digest of the rendered objects, "sha256:<hex>".
	RenderDigest string `json:"renderDigest"`
	// Started is when the attempt began.
	Started metav1.Time `json:"started"`
	// Finished is when it ended.
	Finished metav1.Time `json:"finished"`
	// Result is Ready, Failed or RolledBack.
	// +kubebuilder:validation:Enum=Ready;Failed;RolledBack
	Result string `json:"result"`
	// Message says what happened.
	// +optional
	Message string `json:"message,omitempty"`
}

// StoredRender describes the last render that was Ready, kept for a rollback
// in a Secret of the component's namespace that the component owns.
// +kubebuilder:object:generate=true
type StoredRender struct {
	// Generation of the component the render is of.
	Generation int64 `json:"generation"`
	// RenderDigest is the digest of the rendered objects, "sha256:<hex>".
	RenderDigest string `json:"renderDigest"`
	// Source is where the render came from, when the generator reports it.
	// +optional
	Source *manifests.SourceInfo `json:"source,omitempty"`
	// Secret is the name of the Secret that holds the objects.
	Secret string `json:"secret"`
}
