package localcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/wavekit-dev/wavekit/internal/chartserve"
)

// chartsWait bounds how long a start waits for the operator's process to
// serve the chart repository.
const chartsWait = 30 * time.Second

// ChartsURL is the URL of the Helm repository the operator's process
// serves, or "" when it serves none.
func (o *Operator) ChartsURL() string {
	if o == nil || len(o.Charts) == 0 {
		return ""
	}
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(o.ChartsPort))
}

// OperatorCharts checks the directories of --charts and returns them
// absolute: each must be a chart or hold charts directly under it.
func OperatorCharts(dirs []string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("--charts %s: %w", dir, err)
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("--charts %s: %s is not a directory", dir, abs)
		}
		if _, err := chartserve.ChartDirs(abs); err != nil {
			return nil, fmt.Errorf("--charts %s: %w", dir, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// checkCharts packages the operator's charts into a directory it then
// removes, and checks that their port is free: a broken chart or a taken
// port is an error before anything starts, not in the operator's log.
func checkCharts(s *State) error {
	if s.Operator.ChartsURL() == "" {
		return nil
	}
	port := s.Operator.ChartsPort
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1, where this cluster serves its charts, is taken by another program: "+
			"stop it, or give another port with --charts-port: %w", port, err)
	}
	_ = l.Close()
	dir, err := os.MkdirTemp("", "wavekit-charts-check-")
	if err != nil {
		return fmt.Errorf("checking the charts: %w", err)
	}
	defer os.RemoveAll(dir)
	return chartserve.Package(dir, s.Operator.Charts...)
}

// waitCharts waits until the operator's process serves the repository's
// index, or has exited.
func (c *Cluster) waitCharts(ctx context.Context, s *State) error {
	url := s.Operator.ChartsURL()
	if url == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, chartsWait)
	defer cancel()
	var last error
	for ctx.Err() == nil {
		if err := c.exited(s); err != nil {
			return err
		}
		if last = getIndex(ctx, url); last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the operator did not serve the charts at %s within %s (%w); its log: %s", url, chartsWait, last, c.OperatorLog())
}

// getIndex asks the repository at url for its index.yaml.
func getIndex(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/index.yaml", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}
