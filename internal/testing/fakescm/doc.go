// Package fakescm is the pull request listings of GitHub, GitLab and
// Gitea/Forgejo as a real HTTP server of the suite's own, for tests (and an
// example) of what reads them: open pull requests with labels, branches and
// head commits that a test changes, ETags and 304s, rate-limit headers,
// failures on demand, a token it may require, and a record of each request
// (never a token's value).
//
// # Endpoints
//
//   - GitHub: GET /repos/{owner}/{repo}/pulls (per_page, page; Link rel="next")
//   - GitLab: GET /api/v4/projects/{owner%2Frepo}/merge_requests (per_page,
//     page; X-Next-Page)
//   - Gitea:  GET /api/v1/repos/{owner}/{repo}/pulls (limit, page; Link)
package fakescm
