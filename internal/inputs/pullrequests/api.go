package pullrequests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// Default API base URLs.
const (
	gitHubAPI = "https://api.github.com"
	gitLabAPI = "https://gitlab.com"
)

// api is one repository of one provider's API.
type api struct {
	provider   v1alpha1.PullRequestProvider
	base, repo string
}

// apiOf checks spec and returns its API.
func apiOf(spec *v1alpha1.PullRequestsInput) (api, error) {
	a := api{provider: spec.Provider, base: strings.TrimSuffix(spec.URL, "/"), repo: strings.Trim(spec.Repository, "/")}
	switch {
	case a.base != "":
	case a.provider == v1alpha1.PullRequestsGitHub:
		a.base = gitHubAPI
	case a.provider == v1alpha1.PullRequestsGitLab:
		a.base = gitLabAPI
	default:
		return api{}, fmt.Errorf("url: %s needs the API's URL", a.provider)
	}
	if u, err := url.Parse(a.base); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return api{}, fmt.Errorf("url %q: want http(s)://host[/path]", spec.URL)
	}
	if a.provider != v1alpha1.PullRequestsGitLab && strings.Count(a.repo, "/") != 1 {
		return api{}, fmt.Errorf("repository %q: want owner/name", spec.Repository)
	}
	return a, nil
}

func (a api) key() string { return string(a.provider) + " " + a.base + " " + a.repo }

// host is the API's host, which its rate limit is counted by.
func (a api) host() string {
	u, _ := url.Parse(a.base)
	return u.Host
}

// firstPage is the URL of the listing's first page.
func (a api) firstPage() string {
	switch a.provider {
	case v1alpha1.PullRequestsGitLab:
		return a.base + "/api/v4/projects/" + url.PathEscape(a.repo) + "/merge_requests?state=opened&per_page=100"
	case v1alpha1.PullRequestsGitea:
		return a.base + "/api/v1/repos/" + a.repo + "/pulls?state=open&limit=50&page=1"
	}
	return a.base + "/repos/" + a.repo + "/pulls?state=open&per_page=100"
}

// authorize puts token on req as the provider takes it.
func (a api) authorize(req *http.Request, token string) {
	if token == "" {
		return
	}
	switch a.provider {
	case v1alpha1.PullRequestsGitLab:
		req.Header.Set("PRIVATE-TOKEN", token)
	case v1alpha1.PullRequestsGitea:
		req.Header.Set("Authorization", "token "+token)
	default:
		req.Header.Set("Authorization", "Bearer "+token)
	}
}

// nextPage is the URL of the page after resp's, or "".
func (a api) nextPage(resp *http.Response, current string) string {
	if a.provider == v1alpha1.PullRequestsGitLab {
		next := resp.Header.Get("X-Next-Page")
		if next == "" {
			return ""
		}
		u, err := url.Parse(current)
		if err != nil {
			return ""
		}
		q := u.Query()
		q.Set("page", next)
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, link := range strings.Split(resp.Header.Get("Link"), ",") {
		target, rel, _ := strings.Cut(link, ";")
		if strings.Contains(rel, `rel="next"`) {
			return strings.Trim(strings.TrimSpace(target), "<>")
		}
	}
	return ""
}

// pull is one pull request as the sets see it.
type pull struct {
	Number       int
	Branch       string
	TargetBranch string
	Head         string
	Title        string
	Labels       []string
	Author       string
	URL          string
}

// decode reads one page of the provider's listing.
func (a api) decode(body []byte) ([]pull, error) {
	if a.provider == v1alpha1.PullRequestsGitLab {
		var page []struct {
			IID          int      `json:"iid"`
			Title        string   `json:"title"`
			WebURL       string   `json:"web_url"`
			Labels       []string `json:"labels"`
			SourceBranch string   `json:"source_branch"`
			TargetBranch string   `json:"target_branch"`
			SHA          string   `json:"sha"`
			Author       struct {
				Username string `json:"username"`
			} `json:"author"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, err
		}
		out := make([]pull, 0, len(page))
		for _, m := range page {
			out = append(out, pull{Number: m.IID, Branch: m.SourceBranch, TargetBranch: m.TargetBranch, Head: m.SHA,
				Title: m.Title, Labels: m.Labels, Author: m.Author.Username, URL: m.WebURL})
		}
		return out, nil
	}
	var page []struct {
		Number  int    `json:"number"`
		Title   string `json:"title"`
		HTMLURL string `json:"html_url"`
		User    struct {
			Login string `json:"login"`
		} `json:"user"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
		Head struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
		} `json:"base"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, err
	}
	out := make([]pull, 0, len(page))
	for _, p := range page {
		labels := make([]string, 0, len(p.Labels))
		for _, l := range p.Labels {
			labels = append(labels, l.Name)
		}
		out = append(out, pull{Number: p.Number, Branch: p.Head.Ref, TargetBranch: p.Base.Ref, Head: p.Head.SHA,
			Title: p.Title, Labels: labels, Author: p.User.Login, URL: p.HTMLURL})
	}
	return out, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
