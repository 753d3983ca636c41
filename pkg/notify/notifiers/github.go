package notifiers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// DefaultGitHubAPI is GitHub's API; GitHub Enterprise Server's is
// https://<host>/api/v3.
const DefaultGitHubAPI = "https://api.github.com"

// maxDescription is the longest description GitHub keeps of a status.
const maxDescription = 140

// GitHub sets a commit status on the Git commit an event's revision names,
// as Flux's github provider does: success for info events, failure for
// errors, pending while a wave is held. It first reads the commit's
// statuses and posts nothing when the latest of its context already says
// the same. An event without a Git commit is skipped.
type GitHub struct {
	// API is the API's base URL (default DefaultGitHubAPI).
	API string
	// Owner and Repo name the repository (see ParseRepository).
	Owner, Repo string
	// Token authenticates: a token with the repo:status scope, or a fine-
	// grained one with commit statuses write.
	Token string
	// ContextSuffix ends every status's context, after
	// "<kind>/<namespace>/<name>": so that two operators (two clusters)
	// that post to one repository do not overwrite each other's.
	ContextSuffix string
	// Client sends the requests (default DefaultClient).
	Client *http.Client
}

// commitStatus is a status as GitHub's API reads and writes it.
type commitStatus struct {
	State       string `json:"state"`
	Description string `json:"description"`
	Context     string `json:"context"`
}

// Notify sets the status of e's commit.
func (g *GitHub) Notify(ctx context.Context, e notify.Event) error {
	sha := CommitOf(e.Revision)
	if sha == "" {
		return notify.Skipping("not_applicable")
	}
	state := githubState(e)
	if state == "" {
		return notify.Skipping("not_applicable")
	}
	status := commitStatus{State: state, Context: g.context(e),
		Description: notify.Bound(string(e.Kind)+": "+e.Message, maxDescription)}
	latest, err := g.latest(ctx, sha, status.Context)
	if err != nil {
		return err
	}
	if latest != nil && latest.State == status.State && latest.Description == status.Description {
		return notify.Skipping("unchanged")
	}
	body, err := json.Marshal(status)
	if err != nil {
		return notify.Permanent(fmt.Errorf("encoding the commit status: %w", err))
	}
	_, err = send(ctx, g.Client, request{method: http.MethodPost, url: g.url("statuses", sha), header: g.header(), body: body})
	return err
}

// githubState is the commit state e sets, "" for an event that is not
// about the commit's deployment (drift, a blocked deletion).
func githubState(e notify.Event) string {
	switch e.Kind {
	case notify.KindReady, notify.KindTest:
		return "success"
	case notify.KindWaveHeld:
		return "pending"
	case notify.KindFailed, notify.KindStalled, notify.KindRolledBack:
		return "failure"
	}
	return ""
}

// context names the status of e's object: "component/shop/web/<suffix>".
func (g *GitHub) context(e notify.Event) string {
	c := strings.ToLower(e.Object.Kind + "/" + e.Object.Namespace + "/" + e.Object.Name)
	if g.ContextSuffix != "" {
		c += "/" + g.ContextSuffix
	}
	return c
}

// latest is the newest status of the commit with the context, or nil.
func (g *GitHub) latest(ctx context.Context, sha, statusContext string) (*commitStatus, error) {
	answer, err := send(ctx, g.Client, request{method: http.MethodGet, url: g.url("commits", sha, "statuses") + "?per_page=100", header: g.header()})
	if err != nil {
		return nil, err
	}
	var statuses []commitStatus // newest first
	if err := json.Unmarshal(answer, &statuses); err != nil {
		return nil, fmt.Errorf("reading the statuses of commit %s of %s/%s: %w", sha, g.Owner, g.Repo, err)
	}
	for i := range statuses {
		if statuses[i].Context == statusContext {
			return &statuses[i], nil
		}
	}
	return nil, nil
}

func (g *GitHub) url(parts ...string) string {
	api := g.API
	if api == "" {
		api = DefaultGitHubAPI
	}
	path := []string{"repos", url.PathEscape(g.Owner), url.PathEscape(g.Repo)}
	for _, p := range parts {
		path = append(path, url.PathEscape(p))
	}
	return strings.TrimSuffix(api, "/") + "/" + strings.Join(path, "/")
}

func (g *GitHub) header() http.Header {
	h := http.Header{}
	h.Set("Accept", "application/vnd.github+json")
	h.Set("X-GitHub-Api-Version", "2022-11-28")
	h.Set("Content-Type", "application/json")
	h.Set("Authorization", "Bearer "+g.Token)
	return h
}

// sha1Commit is a Git commit's SHA-1, in hex.
var sha1Commit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// CommitOf is the Git commit (SHA-1, hex) a source revision names, or ""
// for a revision that names none (a chart version, an OCI digest):
// "main@sha1:<hex>" and "sha1:<hex>" (Flux's GitRepository), "main/<hex>"
// (Flux's older form) and a bare "<hex>".
func CommitOf(revision string) string {
	rev := strings.ToLower(revision)
	if _, hash, ok := strings.Cut(rev, "sha1:"); ok {
		rev = hash
	} else if i := strings.LastIndex(rev, "/"); i >= 0 {
		rev = rev[i+1:]
	}
	if sha1Commit.MatchString(rev) {
		return rev
	}
	return ""
}

// ParseRepository reads the owner and name of a repository from its URL:
// https://github.com/owner/repo(.git), ssh://git@host/owner/repo.git or
// git@host:owner/repo.git.
func ParseRepository(address string) (owner, repo string, err error) {
	path := address
	if scp, ok := giturl.ParseSCP(address); ok {
		path = scp.Path // git@github.com:owner/repo.git
	} else if u, perr := url.Parse(address); perr == nil && u.Host != "" {
		path = u.Path
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(path, ".git"), "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", errors.New("want the repository's URL, https://github.com/OWNER/REPO")
	}
	return parts[0], parts[1], nil
}
