package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InputValuesKey is the default key of a member's spec.values under which
// a ComponentSet puts the member's input (its fields, as the input source
// gives them); a template's own value at that key is replaced.
const InputValuesKey = "input"

// DefaultMaxMembers is spec.inputs.maxMembers when it is not set.
const DefaultMaxMembers = 100

// Inputs make one member (a Component) of a ComponentSet per input: an
// entry of a list, a folder or file of a Git repository, an open pull
// request — or, with spec.placement, per cluster and input. Exactly one of
// list, gitDirectories, gitFiles, pullRequests and matrix is set.
// +kubebuilder:validation:XValidation:rule="[has(self.list), has(self.gitDirectories), has(self.gitFiles), has(self.pullRequests), has(self.matrix)].filter(x, x).size() == 1",message="set exactly one of list, gitDirectories, gitFiles, pullRequests and matrix"
type Inputs struct {
	InputSource `json:",inline"`
	// Matrix makes one input of each pair of the inputs of its two
	// sources, their fields merged (a field both give is refused); the id
	// is the two ids joined by "-".
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=2
	// +optional
	Matrix []InputSource `json:"matrix,omitempty"`
	// Name is the template of each member's name, which is its
	// Component's name: ${input.<field>} and, with spec.placement,
	// ${cluster.name} are replaced (see docs/inputs.md). The result must be
	// a DNS label of at most 63 characters, and differ from member to
	// member; a set whose name gives anything else writes nothing and says
	// which input. Default: <set>-${input.id}, and
	// <set>-${cluster.name}-${input.id} with spec.placement.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
	// ValuesKey is the key of each member's spec.values that holds the
	// input's fields, replacing the template's value at that key; default
	// "input": a template reads .Values.input.branch. "-" puts none.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^([-]|[a-zA-Z_][a-zA-Z0-9_]*)$`
	// +optional
	ValuesKey string `json:"valuesKey,omitempty"`
	// MaxMembers bounds the members of the set (inputs, times clusters
	// with spec.placement): past it the set writes and removes nothing and
	// says how many there would be. Default 100.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	// +optional
	MaxMembers *int32 `json:"maxMembers,omitempty"`
	// Interval is how often Git repositories and pull requests are read
	// again (default 5m); a Receiver's event for the repository reads them
	// at once. A list is read at each change of the set.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`
}

// GetMaxMembers returns spec.inputs.maxMembers, or its default.
func (in *Inputs) GetMaxMembers() int {
	if in.MaxMembers == nil {
		return DefaultMaxMembers
	}
	return int(*in.MaxMembers)
}

// InputSource is where inputs come from: one of its fields.
type InputSource struct {
	// List are inputs written in the set: each entry an object whose
	// fields are the input's; its id is its field "id", else its index.
	// +kubebuilder:validation:MaxItems=1000
	// +optional
	List []InputEntry `json:"list,omitempty"`
	// GitDirectories makes an input of each directory of a repository
	// whose path matches one of the globs.
	// +optional
	GitDirectories *GitDirectoriesInput `json:"gitDirectories,omitempty"`
	// GitFiles makes inputs of YAML or JSON files of a repository: a file
	// holding an object is one input, a file holding a list one per entry.
	// +optional
	GitFiles *GitFilesInput `json:"gitFiles,omitempty"`
	// PullRequests makes an input of each open pull request (GitHub,
	// Gitea/Forgejo) or merge request (GitLab) of a repository that the
	// filters select.
	// +optional
	PullRequests *PullRequestsInput `json:"pullRequests,omitempty"`
}

// InputEntry is one entry of spec.inputs.list: an object, whose fields
// are the input's.
// +kubebuilder:validation:Type=object
// +kubebuilder:pruning:PreserveUnknownFields
type InputEntry struct {
	apiextensionsv1.JSON `json:",inline"`
}

// GitInputRepository is the repository Git inputs are read from, with the
// rules of a Component's spec.git (allow-lists, credentials, shared looks).
type GitInputRepository struct {
	// URL of the repository, as in spec.git.url.
	// +kubebuilder:validation:Pattern=`^(https?|ssh)://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`
	// Ref is the commit to read, as in spec.git.ref (default: the tip of
	// the default branch).
	// +optional
	Ref *GitRef `json:"ref,omitempty"`
	// SecretRef names a Secret of the set's namespace with the
	// credentials, with the keys of spec.git.secretRef.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
}

// GitDirectoriesInput selects directories of a repository.
type GitDirectoriesInput struct {
	GitInputRepository `json:",inline"`
	// Paths are globs of directories ("apps/*"; "*" stays within one path
	// element, "**" crosses them). Each matching directory is an input
	// with fields path, name (its last element), revision (the commit)
	// and id (the path, "/" as "-").
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Paths []string `json:"paths"`
	// Exclude are globs of directories left out.
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Exclude []string `json:"exclude,omitempty"`
}

// GitFilesInput selects YAML or JSON files of a repository.
type GitFilesInput struct {
	GitInputRepository `json:",inline"`
	// Paths are globs of files ("tenants/*.yaml"). A file's fields, or
	// those of each entry of a file holding a list, are an input's, with
	// path (the file's), revision and, unless the entry has one, id (the
	// file's path without extension, "/" as "-", then "-<index>" for an
	// entry of a list).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Paths []string `json:"paths"`
}

// PullRequestProvider names an API that serves pull requests.
// +kubebuilder:validation:Enum=GitHub;GitLab;Gitea
type PullRequestProvider string

// Pull request providers.
const (
	PullRequestsGitHub PullRequestProvider = "GitHub"
	PullRequestsGitLab PullRequestProvider = "GitLab"
	// PullRequestsGitea is Gitea's and Forgejo's API.
	PullRequestsGitea PullRequestProvider = "Gitea"
)

// PullRequestsInput selects the open pull requests of a repository. Each
// is an input with fields id and number (the number, as a string and a
// number), branch, targetBranch, head (the head commit's SHA), title,
// labels, author and url.
type PullRequestsInput struct {
	// Provider is the API: GitHub, GitLab or Gitea (Forgejo too).
	Provider PullRequestProvider `json:"provider"`
	// URL is the API's base URL: default https://api.github.com for
	// GitHub and https://gitlab.com for GitLab; required for Gitea.
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	URL string `json:"url,omitempty"`
	// Repository is owner/name (GitLab: the project's full path).
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=512
	Repository string `json:"repository"`
	// SecretRef names a Secret of the set's namespace whose key token is
	// the API token (and whose ca.crt, if any, is trusted besides the
	// system's roots).
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
	// Labels a pull request must all carry to be an input.
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Labels []string `json:"labels,omitempty"`
	// TargetBranch a pull request must target to be an input.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	TargetBranch string `json:"targetBranch,omitempty"`
}

// InputsStatus says what a set's inputs were at the last read.
type InputsStatus struct {
	// Count is the number of inputs at the last good read.
	// +optional
	Count int32 `json:"count,omitempty"`
	// FailingSince is when the reads began to fail; unset after a good
	// one.
	// +optional
	FailingSince *metav1.Time `json:"failingSince,omitempty"`
	// Error is why the last read failed, empty after a good one: the set
	// then keeps the members it had (nothing is created or removed).
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Error string `json:"error,omitempty"`
}
