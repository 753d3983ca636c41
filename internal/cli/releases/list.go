package releases

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
)

// NewListCommand is list: the releases of a namespace, or of all.
func NewListCommand(s *session.Session) *cobra.Command {
	var format string
	var allNamespaces bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the releases of a namespace, or of all with -A",
		Long: `list shows the releases of the namespace (their Secrets of type
wavekit.dev/inventory) with revision, state, object count, last update and
source; -A lists those of every namespace.`,
		Example: `  wavekit list
  wavekit list -A -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := session.CheckOutputFormat(format); err != nil {
				return err
			}
			return runList(cmd.Context(), s, allNamespaces, format)
		},
	}
	session.AddOutputFlag(cmd, &format)
	cmd.Flags().BoolVarP(&allNamespaces, "all-namespaces", "A", false, "list the releases of every namespace")
	return cmd
}

// releaseSummary is one release as list prints it as YAML or JSON.
type releaseSummary struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	Revision  int64     `json:"revision"`
	State     string    `json:"state"`
	Objects   int       `json:"objects"`
	Updated   time.Time `json:"updated"`
	Source    string    `json:"source,omitempty"`
}

func runList(ctx context.Context, s *session.Session, all bool, format string) error {
	cl, err := s.Connect(ctx)
	if err != nil {
		return err
	}
	namespace := cl.Namespace
	if all {
		namespace = ""
	}
	releases, err := releaseStore{client: cl.Client}.list(ctx, namespace)
	if err != nil {
		return err
	}
	summaries := make([]releaseSummary, 0, len(releases))
	for _, r := range releases {
		summaries = append(summaries, releaseSummary{
			Name: r.Name, Namespace: r.Namespace, Revision: r.Revision, State: r.State,
			Objects: len(r.Inventory), Updated: r.Updated, Source: r.Source,
		})
	}
	slices.SortFunc(summaries, func(a, b releaseSummary) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, summaries)
	}
	tw := session.NewTable(s.Stdout)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tREVISION\tSTATE\tOBJECTS\tUPDATED\tSOURCE")
	for _, s := range summaries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t%s\n", s.Namespace, s.Name, s.Revision, s.State, s.Objects, s.Updated.Local().Format(time.RFC3339), s.Source)
	}
	return tw.Flush()
}
