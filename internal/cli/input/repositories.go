package input

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"helm.sh/helm/v3/pkg/helmpath"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
)

// envRepositoryConfig is Helm's variable for its repositories file.
const envRepositoryConfig = "HELM_REPOSITORY_CONFIG"

// DefaultRepositoryConfig is the repositories file Helm itself reads:
// $HELM_REPOSITORY_CONFIG, else repositories.yaml in Helm's configuration
// directory ($HELM_CONFIG_HOME, else $XDG_CONFIG_HOME/helm, else
// ~/.config/helm on Linux).
func DefaultRepositoryConfig() string {
	if path := os.Getenv(envRepositoryConfig); path != "" {
		return path
	}
	return helmpath.ConfigPath("repositories.yaml")
}

// repositoriesFile reads the repositories of Helm's repositories file at
// path, as `helm repo add` writes it: a name, a URL and credentials each.
// A file that does not exist holds none. With plainHTTP every oci://
// repository is spoken to in plain HTTP, those the file does not name too.
func repositoriesFile(path string, plainHTTP bool) func(context.Context) (dependency.Repositories, error) {
	return func(context.Context) (dependency.Repositories, error) {
		repos, err := readRepositoriesFile(path)
		if err != nil {
			return nil, err
		}
		if plainHTTP {
			repos = withPlainHTTP(repos)
		}
		return repos, nil
	}
}

// readRepositoriesFile reads the repositories of the file at path; ""
// or a file that does not exist holds none. Its messages name the file,
// the repository and the key, never a value.
func readRepositoriesFile(path string) (dependency.Repositories, error) {
	if path == "" {
		return nil, nil
	}
	file, err := repo.LoadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("Helm's repositories file %s: %w", path, err)
	}
	repos := make(dependency.Repositories, 0, len(file.Repositories))
	for _, entry := range file.Repositories {
		if entry == nil {
			continue
		}
		r, err := repositoryOf(entry)
		if err != nil {
			return nil, fmt.Errorf("Helm's repositories file %s: repository %s: %w", path, entry.Name, err)
		}
		repos = append(repos, r)
	}
	return repos, nil
}

// repositoryOf is the repository of an entry of the file: its name, URL
// and credentials, the files it names read (relative to the working
// directory, as Helm reads them).
func repositoryOf(entry *repo.Entry) (dependency.Repository, error) {
	r := dependency.Repository{Name: entry.Name, URL: entry.URL}
	if r.URL == "" {
		return r, errors.New("no url")
	}
	creds := &fetch.Credentials{Username: entry.Username, Password: entry.Password}
	var err error
	if entry.CAFile != "" {
		if creds.CA, err = os.ReadFile(entry.CAFile); err != nil {
			return r, fmt.Errorf("caFile: %w", err)
		}
	}
	if (entry.CertFile == "") != (entry.KeyFile == "") {
		return r, errors.New("certFile and keyFile go together: give both or neither")
	}
	if entry.CertFile != "" {
		if creds.CertPEM, err = os.ReadFile(entry.CertFile); err != nil {
			return r, fmt.Errorf("certFile: %w", err)
		}
		if creds.KeyPEM, err = os.ReadFile(entry.KeyFile); err != nil {
			return r, fmt.Errorf("keyFile: %w", err)
		}
	}
	if creds.Username != "" || creds.Password != "" || len(creds.CA) > 0 || len(creds.CertPEM) > 0 {
		r.Credentials = creds
	}
	return r, nil
}

// anyOCI is the repository of every oci:// URL a longer one does not
// match (see dependency.Repositories.ForURL).
const anyOCI = "oci://"

// withPlainHTTP marks every oci:// repository of repos to be spoken to in
// plain HTTP, and adds one that stands for every other oci:// URL.
func withPlainHTTP(repos dependency.Repositories) dependency.Repositories {
	out := make(dependency.Repositories, 0, len(repos)+1)
	for _, r := range repos {
		if strings.HasPrefix(r.URL, anyOCI) {
			r.PlainHTTP = true
		}
		out = append(out, r)
	}
	return append(out, dependency.Repository{URL: anyOCI, PlainHTTP: true})
}
