package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// imageTag is what a Docker image tag may be.
var imageTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// TestVersionScript runs hack/version.sh, the Makefile's VERSION, in a git
// repository through a release's life: every answer is valid semver and a
// valid image tag, and only a clean tag is a release.
func TestVersionScript(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "hack", "version.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_COMMITTER_DATE=2026-11-23T17:26:28Z", "GIT_AUTHOR_DATE=2026-11-23T17:26:28Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(content string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "file"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		run("git", "add", "file")
		run("git", "commit", "-q", "-m", content)
		return run("git", "rev-parse", "--short=12", "HEAD")
	}
	check := func(step, want string, release bool) {
		t.Helper()
		got := run("bash", script)
		if got != want {
			t.Errorf("%s: VERSION = %q, want %q", step, got, want)
		}
		if !semver.IsValid(got) || !imageTag.MatchString(got) {
			t.Errorf("%s: VERSION %q is not both valid semver and a valid image tag", step, got)
		}
		if IsRelease(got) != release {
			t.Errorf("%s: IsRelease(%q) = %v, want %v", step, got, IsRelease(got), release)
		}
	}

	check("outside a repository", "v0.0.0", false)
	run("git", "init", "-q")
	check("before the first commit", "v0.0.0", false)
	rev := commit("one")
	check("no tag yet", "v0.0.0-20261123172628-"+rev, false)
	run("git", "tag", "v0.2.0")
	check("on a tag", "v0.2.0", true)
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("on a tag with changed files", "v0.2.1-0.20261123172628-"+rev, false)
	rev = commit("two")
	check("after a tag", "v0.2.1-0.20261123172628-"+rev, false)
	run("git", "tag", "v0.3.0-rc.1")
	rev = commit("three")
	check("after a pre-release", "v0.3.0-rc.1.0.20261123172628-"+rev, false)
	if !module.IsPseudoVersion(run("bash", script)) {
		t.Errorf("the version after a tag is not a Go pseudo-version")
	}
}
