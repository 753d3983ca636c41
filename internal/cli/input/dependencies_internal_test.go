package input

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/repo"
)

// TestRepositoriesFile reads the names, URLs and credentials of Helm's
// repositories file, and files its entries name.
func TestRepositoriesFile(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("the CA"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "repositories.yaml")
	writeRepositories(t, path,
		&repo.Entry{Name: "public", URL: "https://charts.example.com"},
		&repo.Entry{Name: "private", URL: "https://private.example.com/charts", Username: "me", Password: "s3cret", CAFile: ca})

	repos, err := repositoriesFile(path, false)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(repos) != 2 {
		t.Fatalf("got %d repositories, want 2", len(repos))
	}
	if r, ok := repos.Named("public"); !ok || r.URL != "https://charts.example.com" || r.Credentials != nil {
		t.Errorf("public: %+v", r)
	}
	r, ok := repos.ForURL("https://private.example.com/charts/sub")
	if !ok || r.Name != "private" || r.Credentials == nil || r.Credentials.Username != "me" || r.Credentials.Password != "s3cret" ||
		string(r.Credentials.CA) != "the CA" {
		t.Errorf("private: %+v", r)
	}
}

// TestRepositoriesFileMissing: a file that does not exist names no
// repository; an entry whose file cannot be read is an error that names
// the file, the repository and the key, never the password.
func TestRepositoriesFileMissing(t *testing.T) {
	dir := t.TempDir()
	repos, err := readRepositoriesFile(filepath.Join(dir, "none.yaml"))
	if err != nil || len(repos) != 0 {
		t.Fatalf("a missing file: %v, %v", repos, err)
	}
	path := filepath.Join(dir, "repositories.yaml")
	writeRepositories(t, path, &repo.Entry{Name: "private", URL: "https://private.example.com", Username: "me", Password: "s3cret",
		CAFile: filepath.Join(dir, "gone.pem")})
	_, err = readRepositoriesFile(path)
	if err == nil {
		t.Fatal("a caFile that does not exist: no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "Helm's repositories file "+path+": repository private: caFile: ") || strings.Contains(msg, "s3cret") {
		t.Errorf("message: %s", msg)
	}
}

// TestPlainHTTP: --plain-http marks the file's oci:// repositories and
// stands for every other OCI registry, and leaves Helm repositories alone.
func TestPlainHTTP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repositories.yaml")
	writeRepositories(t, path, &repo.Entry{Name: "registry", URL: "oci://registry.example.com/charts", Username: "me", Password: "pw"},
		&repo.Entry{Name: "web", URL: "http://charts.example.com"})
	repos, err := repositoriesFile(path, true)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for url, wantName := range map[string]string{"oci://registry.example.com/charts": "registry", "oci://localhost:5000/charts": ""} {
		r, ok := repos.ForURL(url)
		if !ok || !r.PlainHTTP || r.Name != wantName {
			t.Errorf("%s: %+v", url, r)
		}
	}
	if r, ok := repos.ForURL("http://charts.example.com"); !ok || r.PlainHTTP {
		t.Errorf("a Helm repository: %+v", r)
	}
	none, err := repositoriesFile(path, false)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := none.ForURL("oci://localhost:5000/charts"); ok {
		t.Error("without --plain-http, no repository stands for every OCI registry")
	}
}

func writeRepositories(t *testing.T, path string, entries ...*repo.Entry) {
	t.Helper()
	f := repo.NewFile()
	f.Add(entries...)
	if err := f.WriteFile(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSourceRoot: a chart's file:// dependencies stay inside its Git work
// tree (a .git directory or file), else nothing bounds them.
func TestSourceRoot(t *testing.T) {
	tree := t.TempDir()
	chart := filepath.Join(tree, "charts", "web")
	if err := os.MkdirAll(chart, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := SourceRoot(chart); got != string(filepath.Separator) {
		t.Errorf("outside a work tree: %s, want the filesystem's root", got)
	}
	if err := os.Mkdir(filepath.Join(tree, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		t.Fatal(err)
	}
	if got := SourceRoot(chart); got != real {
		t.Errorf("in a work tree: %s, want %s", got, real)
	}
	submodule := filepath.Join(tree, "charts")
	if err := os.WriteFile(filepath.Join(submodule, ".git"), []byte("gitdir: ../.git/modules/charts\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := SourceRoot(chart); got != filepath.Join(real, "charts") {
		t.Errorf("in a submodule: %s, want its own work tree", got)
	}
}

// TestLockCache: a second run waits for the one that holds the cache, and
// takes it once it is given back; a run that holds it too long makes the
// other fetch into a temporary cache.
func TestLockCache(t *testing.T) {
	defer func(wait time.Duration) { cacheLockWait = wait }(cacheLockWait)
	cacheLockWait = 500 * time.Millisecond
	dir := filepath.Join(t.TempDir(), "charts")
	unlock, err := lockCache(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := lockCache(ctx, dir); err == nil || !strings.Contains(err.Error(), "waiting for another wavekit to release it") {
		t.Fatalf("while held: %v", err)
	}
	deps := (&DependencyOptions{cacheDir: dir}).Resolver(&strings.Builder{})
	start := time.Now()
	_, done, err := deps.resolver(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done()
	if waited := time.Since(start); waited < cacheLockWait {
		t.Errorf("took a temporary cache after %s, before %s", waited, cacheLockWait)
	}
	if got := deps.stderr.(*strings.Builder).String(); !strings.Contains(got, "another wavekit is using it; this run fetches into a temporary cache") {
		t.Errorf("stderr: %q", got)
	}
	unlock()
	again, err := lockCache(context.Background(), dir)
	if err != nil {
		t.Fatalf("once given back: %v", err)
	}
	again()
}
