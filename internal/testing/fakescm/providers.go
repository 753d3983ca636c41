package fakescm

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// github serves GitHub's listing of open pull requests.
func (s *Server) github(w http.ResponseWriter, r *http.Request) {
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	page, size := pageOf(r, "per_page", 30)
	s.answer(w, r, s.pulls(repo), page, size, linkNext(w, r))
}

// gitea serves Gitea's (and Forgejo's), which is GitHub's shape.
func (s *Server) gitea(w http.ResponseWriter, r *http.Request) {
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	page, size := pageOf(r, "limit", 30)
	s.answer(w, r, s.pulls(repo), page, size, linkNext(w, r))
}

// gitlab serves GitLab's listing of opened merge requests.
func (s *Server) gitlab(w http.ResponseWriter, r *http.Request) {
	repo := r.PathValue("id") // unescaped: owner/repo
	page, size := pageOf(r, "per_page", 20)
	s.mu.Lock()
	var items []any
	for _, p := range s.open(repo) {
		items = append(items, map[string]any{"iid": p.Number, "title": p.Title, "web_url": fmt.Sprintf("%s/%s/-/merge_requests/%d", s.URL, repo, p.Number),
			"author": map[string]any{"username": p.Author}, "labels": orEmpty(p.Labels), "source_branch": p.Branch,
			"target_branch": p.Target, "sha": p.Head, "state": "opened"})
	}
	s.mu.Unlock()
	s.answer(w, r, items, page, size, func(next int) { w.Header().Set("X-Next-Page", strconv.Itoa(next)) })
}

// pulls are repo's open pull requests in GitHub's (and Gitea's) shape.
func (s *Server) pulls(repo string) []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var items []any
	for _, p := range s.open(repo) {
		labels := make([]any, 0, len(p.Labels))
		for _, l := range p.Labels {
			labels = append(labels, map[string]any{"name": l})
		}
		items = append(items, map[string]any{"number": p.Number, "title": p.Title, "html_url": fmt.Sprintf("%s/%s/pull/%d", s.URL, repo, p.Number),
			"state": "open", "user": map[string]any{"login": p.Author}, "labels": labels,
			"head": map[string]any{"ref": p.Branch, "sha": p.Head}, "base": map[string]any{"ref": p.Target}})
	}
	return items
}

// linkNext sets a Link header to the next page of r.
func linkNext(w http.ResponseWriter, r *http.Request) func(int) {
	return func(next int) {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(next))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, u.String()))
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
