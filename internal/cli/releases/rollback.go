package releases

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
)

// NewHistoryCommand is history: a release's last revisions.
func NewHistoryCommand(s *session.Session) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "Show the last revisions of release NAME",
		Long: `history lists the last revisions of release NAME as its Secret records them
(up to 10): revision, when, how it ended (Ready, Progressing, Failed), the
digest of its rendered objects, the source and the message. A revision that
rolled back says to which one. Revisions whose objects are stored can be
rolled back to; older renders are dropped once the stored ones pass 2 MiB.`,
		Example: `  wavekit history demo
  wavekit history demo -o json`,
		Args: session.ExactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := session.CheckOutputFormat(format); err != nil {
				return err
			}
			return runHistory(cmd.Context(), s, args[0], format)
		},
	}
	session.AddOutputFlag(cmd, &format)
	return cmd
}

// historyEntry is a revision as history prints it as YAML or JSON.
type historyEntry struct {
	Revision     int64     `json:"revision"`
	Updated      time.Time `json:"updated"`
	State        string    `json:"state"`
	Digest       string    `json:"digest"`
	Source       string    `json:"source,omitempty"`
	Message      string    `json:"message,omitempty"`
	RolledBackTo int64     `json:"rolledBackTo,omitempty"`
	Stored       bool      `json:"stored"`
}

func runHistory(ctx context.Context, s *session.Session, name, format string) error {
	rel, _, err := loadExistingRelease(ctx, s, name)
	if err != nil {
		return err
	}
	entries := make([]historyEntry, len(rel.History))
	for i, h := range rel.History {
		entries[i] = historyEntry{Revision: h.Revision, Updated: h.Updated, State: h.State, Digest: h.Digest, Source: h.Source,
			Message: h.Message, RolledBackTo: h.RolledBackTo, Stored: h.Objects != nil}
	}
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, entries)
	}
	w := session.NewTable(s.Stdout)
	fmt.Fprintln(w, "REVISION\tUPDATED\tSTATE\tDIGEST\tMESSAGE")
	for _, e := range entries {
		message := e.Message
		if e.RolledBackTo > 0 {
			message = strings.TrimSuffix(fmt.Sprintf("rollback to %d; %s", e.RolledBackTo, message), "; ")
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", e.Revision, e.Updated.UTC().Format(time.RFC3339), e.State, shortDigest(e.Digest), message)
	}
	return w.Flush()
}

// shortDigest is the first 12 hex digits of a sha256 digest.
func shortDigest(d string) string {
	const prefix, length = len("sha256:"), 12
	if len(d) < prefix+length {
		return d
	}
	return d[prefix : prefix+length]
}

type rollbackOptions struct {
	wait    bool
	timeout time.Duration
}

// NewRollbackCommand is rollback: an earlier revision of a release applied
// again.
func NewRollbackCommand(s *session.Session) *cobra.Command {
	o := &rollbackOptions{}
	cmd := &cobra.Command{
		Use:   "rollback NAME [REVISION]",
		Short: "Apply the objects of an earlier revision of release NAME again",
		Long: `rollback re-applies the objects an earlier revision of release NAME rendered,
as its Secret stored them (no source or values are read), as a new revision:
wave by wave, with its purges and prunes, as apply does. Objects that the
earlier revision did not have are pruned; those it shares with the current
one are updated in place and keep their UIDs. Without REVISION it rolls back
to the newest Ready revision before the current one.`,
		Example: `  wavekit rollback demo
  wavekit rollback demo 3 --wait`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			revision := int64(0)
			if len(args) == 2 {
				n, err := strconv.ParseInt(args[1], 10, 64)
				if err != nil || n < 1 {
					return fmt.Errorf("revision %q: want a revision number (see wavekit history %s)", args[1], args[0])
				}
				revision = n
			}
			return o.run(cmd.Context(), s, args[0], revision)
		},
	}
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait until every wave is applied and ready")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long --wait waits")
	return cmd
}

func (o *rollbackOptions) run(ctx context.Context, s *session.Session, name string, revision int64) error {
	rel, cl, err := loadExistingRelease(ctx, s, name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return rollbackRelease(ctx, s, cl, rel, revision, o.wait, o.timeout)
}

// rollbackRelease applies the stored objects of revision (0: the newest
// Ready one before the current) as the release's next revision.
func rollbackRelease(ctx context.Context, s *session.Session, cl *session.Cluster, rel *release, revision int64, wait bool, timeout time.Duration) error {
	target, err := rollbackTarget(rel.History, rel.Revision, revision)
	if err != nil {
		return fmt.Errorf("release %s: %w", rel, err)
	}
	a, err := newReleaseApply(ctx, cl, releaseStore{client: cl.Client}, rel, target.objectsOf(), s)
	if err != nil {
		return err
	}
	a.source, a.rolledBackTo = target.Source, target.Revision
	a.wrote = true // a rollback is a revision of its own, even when nothing changes
	return a.run(ctx, wait, timeout)
}

// loadExistingRelease connects and reads release name, which must exist.
func loadExistingRelease(ctx context.Context, s *session.Session, name string) (*release, *session.Cluster, error) {
	if err := checkNames(s, name, ""); err != nil {
		return nil, nil, err
	}
	cl, err := s.Connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	rel, err := releaseStore{client: cl.Client}.get(ctx, cl.Namespace, name)
	if err != nil {
		return nil, nil, err
	}
	if rel == nil {
		return nil, nil, fmt.Errorf("release %s/%s not found: no secret %s%s", cl.Namespace, name, secretPrefix, name)
	}
	if rel.OperatorName != "" && rel.OperatorName != s.OperatorName {
		return nil, nil, fmt.Errorf("release %s was applied with --operator-name %s, not %s", rel, rel.OperatorName, s.OperatorName)
	}
	return rel, cl, nil
}
