// Package fakegithub is GitHub's commit-status API as a real HTTP server,
// for tests of what sets commit statuses: GET
// /repos/{owner}/{repo}/commits/{sha}/statuses (newest first) and POST
// /repos/{owner}/{repo}/statuses/{sha}, for any repository, with the
// Authorization header each request carried.
package fakegithub
