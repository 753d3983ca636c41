package localcluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DefaultName is the name of a cluster when none is given.
const DefaultName = "wavekit"

// DefaultNodes is the number of Nodes kwok simulates unless told otherwise.
const DefaultNodes = 3

// stateFile records what a cluster is: its ports, binaries, Nodes and the
// processes that run it.
const stateFile = "cluster.json"

// State is what a cluster's directory records about it.
type State struct {
	// APIServerPort, EtcdPort and EtcdPeerPort are the ports on 127.0.0.1,
	// chosen when the cluster was created and kept, so that its kubeconfig
	// stays valid.
	APIServerPort int `json:"apiServerPort"`
	EtcdPort      int `json:"etcdPort"`
	EtcdPeerPort  int `json:"etcdPeerPort"`
	// Binaries is the directory of the binaries it runs.
	Binaries string `json:"binaries"`
	// Nodes is the number of Nodes kwok simulates.
	Nodes int `json:"nodes"`
	// Operator, when set, runs the reference operator on the host.
	Operator *Operator `json:"operator,omitempty"`
	// Cloud, when set, runs the simulated cloud.
	Cloud *Cloud `json:"cloud,omitempty"`
	// EgressGate, when set, runs the egress gate (a cluster created before
	// there was one gets one at its next start).
	EgressGate *EgressGate `json:"egressGate,omitempty"`
	// ServiceCIDR and PodCIDR are the ranges of the Services' and the pods'
	// addresses, chosen when the cluster was created and kept, since the
	// Services keep their addresses in etcd; empty in a cluster created
	// before they were recorded, which keeps the ranges it had (see
	// ServiceRange and PodRange).
	ServiceCIDR string `json:"serviceCIDR,omitempty"`
	PodCIDR     string `json:"podCIDR,omitempty"`
	// Processes are the processes last started, in the order of their start.
	Processes []ProcessRecord `json:"processes,omitempty"`
}

// ProcessRecord is a process of the cluster: which part, and its id.
type ProcessRecord struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
}

// Cluster is a local cluster's name and directory.
type Cluster struct {
	Name string
	Dir  string
}

// namePattern is what a cluster name may be: a DNS label, as it becomes part
// of a kubeconfig context and a directory name.
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// StateRoot is the directory of every cluster: $XDG_STATE_HOME/wavekit/clusters,
// else ~/.local/state/wavekit/clusters.
func StateRoot() (string, error) {
	if dir := os.Getenv("XDG_STATE_HOME"); dir != "" {
		return filepath.Join(dir, "wavekit", "clusters"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the directory of local clusters: %w", err)
	}
	return filepath.Join(home, ".local", "state", "wavekit", "clusters"), nil
}

// Named returns the cluster called name (which need not exist).
func Named(name string) (*Cluster, error) {
	if !namePattern.MatchString(name) {
		return nil, fmt.Errorf("cluster name %q: use lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit", name)
	}
	root, err := StateRoot()
	if err != nil {
		return nil, err
	}
	return &Cluster{Name: name, Dir: filepath.Join(root, name)}, nil
}

// List returns the clusters that have a directory, by name.
func List() ([]*Cluster, error) {
	root, err := StateRoot()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing local clusters: %w", err)
	}
	var clusters []*Cluster
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, e.Name(), stateFile)); e.IsDir() && err == nil {
			clusters = append(clusters, &Cluster{Name: e.Name(), Dir: filepath.Join(root, e.Name())})
		}
	}
	slices.SortFunc(clusters, func(a, b *Cluster) int { return strings.Compare(a.Name, b.Name) })
	return clusters, nil
}

// ErrNotFound is returned for a cluster that has no directory.
var ErrNotFound = errors.New("no such local cluster")

// ReadState reads the cluster's record; the error wraps ErrNotFound when the
// cluster does not exist.
func (c *Cluster) ReadState() (*State, error) {
	data, err := os.ReadFile(c.path(stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %q (wavekit cluster list shows the clusters; wavekit cluster create --name %s makes it)", ErrNotFound, c.Name, c.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading cluster %s: %w", c.Name, err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading %s: %w", c.path(stateFile), err)
	}
	return &s, nil
}

// writeState replaces the cluster's record.
func (c *Cluster) writeState(s *State) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := c.path(stateFile + ".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing the record of cluster %s: %w", c.Name, err)
	}
	return os.Rename(tmp, c.path(stateFile))
}

// path is a file of the cluster's directory.
func (c *Cluster) path(elem ...string) string {
	return filepath.Join(append([]string{c.Dir}, elem...)...)
}

// LogDir is where the processes of the cluster log.
func (c *Cluster) LogDir() string { return c.path("logs") }

// ContextName is the cluster's context in a kubeconfig.
func (c *Cluster) ContextName() string { return "wavekit-" + c.Name }
