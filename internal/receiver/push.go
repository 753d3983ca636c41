package receiver

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
)

// pushed are the repositories a GitHub or GitLab push names, each as
// repositoryKey gives it; none for another sender or a body that names
// none. A request that names repositories asks only the Components (and
// ComponentSets) that read one of them, or that read no Git repository at
// all; the resolver then looks at the repository again at once.
func pushed(typ v1alpha1.ReceiverType, body []byte) []string {
	var urls []string
	switch typ {
	case v1alpha1.ReceiverGitHub:
		var event struct {
			Repository struct {
				CloneURL string `json:"clone_url"`
				SSHURL   string `json:"ssh_url"`
				GitURL   string `json:"git_url"`
				HTMLURL  string `json:"html_url"`
			} `json:"repository"`
		}
		if json.Unmarshal(body, &event) == nil {
			r := event.Repository
			urls = []string{r.CloneURL, r.SSHURL, r.GitURL, r.HTMLURL}
		}
	case v1alpha1.ReceiverGitLab:
		var event struct {
			Project struct {
				HTTPURL string `json:"git_http_url"`
				SSHURL  string `json:"git_ssh_url"`
				WebURL  string `json:"web_url"`
			} `json:"project"`
		}
		if json.Unmarshal(body, &event) == nil {
			p := event.Project
			urls = []string{p.HTTPURL, p.SSHURL, p.WebURL}
		}
	}
	var keys []string
	for _, u := range urls {
		if k := repositoryKey(u); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// repositoryKey is what two URLs of one repository share, whatever the
// protocol: host and path, lower case, without a user, a port, or a .git
// suffix. git@host:org/repo (scp-like) counts as ssh://git@host/org/repo.
func repositoryKey(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(giturl.Normalize(raw))
	if err != nil || u.Hostname() == "" {
		return ""
	}
	path := strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	return strings.ToLower(u.Hostname() + "/" + path)
}

// readsPushed reports whether spec reads none of its sources from Git, or
// reads one of the repositories in keys.
func readsPushed(spec *v1alpha1.ComponentSpec, keys []string) bool {
	var repos []string
	if spec.Git != nil {
		repos = append(repos, spec.Git.URL)
	}
	for _, v := range spec.ValuesFrom {
		if v.Git != nil {
			repos = append(repos, v.Git.URL)
		}
	}
	if len(repos) == 0 {
		return true
	}
	for _, r := range repos {
		for _, k := range keys {
			if repositoryKey(r) == k {
				return true
			}
		}
	}
	return false
}

// setInputsRead reports whether set's spec.inputs read one of the
// repositories in keys: its Git inputs' URLs, or the repository of its pull
// requests on the API's host (github.com for api.github.com). The set then
// reads its inputs again at once.
func setInputsRead(set *v1alpha1.ComponentSet, keys []string) bool {
	in := set.Spec.Inputs
	if in == nil {
		return false
	}
	var repos []string
	for _, s := range append([]v1alpha1.InputSource{in.InputSource}, in.Matrix...) {
		switch {
		case s.GitDirectories != nil:
			repos = append(repos, repositoryKey(s.GitDirectories.URL))
		case s.GitFiles != nil:
			repos = append(repos, repositoryKey(s.GitFiles.URL))
		case s.PullRequests != nil:
			repos = append(repos, pullRequestsKey(s.PullRequests))
		}
	}
	for _, r := range repos {
		if r != "" && slices.Contains(keys, r) {
			return true
		}
	}
	return false
}

// pullRequestsKey is the repositoryKey of the repository whose pull
// requests p reads.
func pullRequestsKey(p *v1alpha1.PullRequestsInput) string {
	host := "github.com"
	if p.Provider == v1alpha1.PullRequestsGitLab {
		host = "gitlab.com"
	}
	if p.URL != "" {
		u, err := url.Parse(p.URL)
		if err != nil || u.Hostname() == "" {
			return ""
		}
		host = strings.TrimPrefix(u.Hostname(), "api.")
	}
	return strings.ToLower(host + "/" + strings.Trim(p.Repository, "/"))
}
