package localcluster

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// stopGrace is how long a process may take to exit on SIGTERM.
const stopGrace = 15 * time.Second

// Stop stops the cluster's processes, last started first, and keeps its
// data: Start starts it again as it was left.
func (c *Cluster) Stop() error {
	s, err := c.ReadState()
	if err != nil {
		return err
	}
	return c.stopRecorded(s)
}

// stopRecorded stops the recorded processes that are still the cluster's
// (see stopOrder) and clears the record.
func (c *Cluster) stopRecorded(s *State) error {
	var errs []error
	for _, p := range stopOrder(s.Processes) {
		if c.owns(p) {
			errs = append(errs, stopProcess(p, stopGrace))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stopping cluster %s: %w", c.Name, err)
	}
	s.Processes = nil
	return c.writeState(s)
}

// Delete stops the cluster and removes its directory.
func (c *Cluster) Delete() error {
	if err := c.Stop(); err != nil {
		return err
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		return fmt.Errorf("removing cluster %s: %w", c.Name, err)
	}
	return nil
}
