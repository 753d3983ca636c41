package v1alpha1

import (
	"hash/fnv"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GitSource is a path of a Git repository at the commit a ref names, read
// by the operator itself (no Flux needed). The repository is looked at
// every interval; a look is shared by every Component of the operator that
// uses the same URL with the same credentials Secret, and a commit is
// fetched once, one commit deep, whoever asks.
// +kubebuilder:validation:XValidation:rule="!has(self.verify) || !has(self.verify.mode) || self.verify.mode == 'HEAD' || (has(self.ref) && !has(self.ref.commit) && (has(self.ref.tag) || has(self.ref.semver) || (has(self.ref.name) && self.ref.name.startsWith('refs/tags/'))))",message="verify.mode Tag and TagAndHEAD verify an annotated tag: take one with ref.tag, ref.semver or a ref.name under refs/tags/"
type GitSource struct {
	// URL of the repository: https://host/path, http://host/path (a
	// trusted network only) or ssh://user@host/path. The scp-like form
	// user@host:path is written ssh://user@host/path. Credentials go in
	// secretRef, never in the URL.
	// +kubebuilder:validation:Pattern=`^(https?|ssh)://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`
	// Ref is the commit to take: the fields take precedence in the order
	// commit, name, semver, tag, branch, as in Flux's GitRepository.
	// Without it, the tip of the repository's default branch.
	// +optional
	Ref *GitRef `json:"ref,omitempty"`
	// Path is, in spec.git, the directory that holds a Helm chart
	// (Chart.yaml), a kustomization or Go templates (default: the
	// repository's root; kustomize bases elsewhere in the repository may
	// be used); in a valuesFrom entry, the values file.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^/]`
	// +optional
	Path string `json:"path,omitempty"`
	// Interval is how often the repository is looked at for a new commit
	// (default 5m): once per interval, whatever the number of Components
	// that read it; the Component is looked at as often (jittered up to a
	// tenth later). A Receiver's push makes it look at once.
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`
	// Timeout bounds each look at the repository and each fetch (default
	// 60s).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// SecretRef names a Secret of the Component's namespace, read as the
	// Component's identity, with the credentials: username and password
	// (HTTP basic; a token as the password), or bearerToken; ca.crt (a PEM
	// bundle trusted besides the system's roots); tls.crt and tls.key (a
	// client certificate); for SSH, identity (a private key), its password
	// if it has one, and known_hosts (required: a host key known_hosts does
	// not hold is refused).
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
	// ProxySecretRef names a Secret of the Component's namespace with the
	// proxy every connection goes through: address (http://, https:// or
	// socks5://), and username and password if it asks for them.
	// +optional
	ProxySecretRef *LocalObjectReference `json:"proxySecretRef,omitempty"`
	// Ignore holds .gitignore patterns of paths left out of the checkout.
	// +kubebuilder:validation:MaxLength=16384
	// +optional
	Ignore string `json:"ignore,omitempty"`
	// SparseCheckout are the directories written from the repository
	// (default: all). With them, a commit that changes nothing in these
	// directories renders nothing: the render depends on their content,
	// not on the commit. spec.git.path must be inside one of them.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +optional
	SparseCheckout []string `json:"sparseCheckout,omitempty"`
	// RecurseSubmodules fetches the submodules the commit records, at the
	// commits it records, with the Secret's credentials on the same host
	// only. Their URLs must be allowed too.
	// +optional
	RecurseSubmodules bool `json:"recurseSubmodules,omitempty"`
	// Verify checks the signature of the commit or tag taken before
	// anything of it is rendered: an unsigned commit, or one signed by
	// another key, renders nothing (Ready False, reason
	// VerificationFailed, naming the key that signed).
	// +optional
	Verify *GitVerification `json:"verify,omitempty"`
}

// GitRef names a commit of a repository.
type GitRef struct {
	// Branch follows the tip of a branch.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Branch string `json:"branch,omitempty"`
	// Tag takes the commit of a tag.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Tag string `json:"tag,omitempty"`
	// SemVer takes the highest tag that a semver range matches
	// (">=1.2.0 <2.0.0", "~1.4", "^2"); a leading v of a tag is ignored.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	SemVer string `json:"semver,omitempty"`
	// Name takes any reference by its full name: refs/pull/42/head.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^refs/`
	// +optional
	Name string `json:"name,omitempty"`
	// Commit takes one commit by its SHA-1; with branch, the branch is
	// fetched whole and must hold it.
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{40}$`
	// +optional
	Commit string `json:"commit,omitempty"`
}

// GitVerification says which signatures are checked with which keys.
type GitVerification struct {
	// Mode is HEAD (the commit taken, the default), Tag (the annotated
	// tag taken) or TagAndHEAD (both).
	// +kubebuilder:validation:Enum=HEAD;Tag;TagAndHEAD
	// +optional
	Mode string `json:"mode,omitempty"`
	// SecretRef names a Secret of the Component's namespace with the
	// trusted public keys: keys named *.asc hold armored OpenPGP keys
	// (gpg --export --armor), keys named *.sshpub SSH public keys in
	// authorized_keys format (git's SSH signatures). Any one that made the
	// signature suffices; keys of other names are ignored.
	SecretRef LocalObjectReference `json:"secretRef"`
}

// GetMode returns the mode, HEAD by default.
func (v *GitVerification) GetMode() string {
	if v.Mode == "" {
		return "HEAD"
	}
	return v.Mode
}

// DefaultGitInterval is how often a repository is looked at when its
// interval is not given.
const DefaultGitInterval = 5 * time.Minute

// GitInterval is how often spec's repository is looked at.
func GitInterval(spec *GitSource) time.Duration {
	if spec == nil || spec.Interval == nil || spec.Interval.Duration <= 0 {
		return DefaultGitInterval
	}
	return spec.Interval.Duration
}

// gitInterval is the shortest interval of the repositories c reads (its
// spec.git and its valuesFrom files), 0 when it reads none.
func (c *Component) gitInterval() time.Duration {
	var shortest time.Duration
	consider := func(spec *GitSource) {
		if d := GitInterval(spec); shortest == 0 || d < shortest {
			shortest = d
		}
	}
	if c.Spec.Git != nil {
		consider(c.Spec.Git)
	}
	for _, v := range c.Spec.ValuesFrom {
		if v.Git != nil {
			consider(v.Git)
		}
	}
	return shortest
}

// gitJitter is the share of an interval by which Components of one
// interval come back apart: up to a tenth later than it.
const gitJitter = 10

// jittered lengthens d by up to a tenth, by an amount of c's own (from its
// UID), so that Components of one interval do not all come at once, and
// none comes sooner than its interval: a look at the repository made for
// one of them serves the others (GitLookAge).
func (c *Component) jittered(d time.Duration) time.Duration {
	h := fnv.New32a()
	_, _ = h.Write([]byte(c.UID))
	return d + time.Duration(float64(d/gitJitter)*float64(h.Sum32())/float64(math.MaxUint32))
}

// GitLookAge is how old a look at a repository of interval may be to
// serve a Component's pass: a little less than the interval, the shortest
// time after which a Component that reads the repository comes back. Each
// pass of a Component then finds the last look older than that, and looks
// again, unless another Component of the repository looked since: one
// look per interval, for one Component as for a hundred.
func GitLookAge(interval time.Duration) time.Duration {
	return interval - interval/100
}
