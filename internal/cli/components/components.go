package components

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli/livestatus"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The verbs on Components of the reference operator: get, tree, suspend,
// resume and reconcile (diff component is in diffcomponent.go). They work
// on the cluster of --kubeconfig and --context; a Component is NAMESPACE/NAME,
// or NAME in --namespace.

// connectToComponent connects and reads the Component ref names.
func connectToComponent(ctx context.Context, s *session.Session, ref string) (*session.Cluster, *v1alpha1.Component, error) {
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	c, err := readComponent(ctx, cl, ref)
	return cl, c, err
}

// readComponent reads the Component ref names; a missing one, or a cluster
// without the Component kind, is an error that says so.
func readComponent(ctx context.Context, cl *session.Cluster, ref string) (*v1alpha1.Component, error) {
	id := session.ObjectName(ref, cl.Namespace)
	c, err := previewedComponent(ctx, cl, id)
	if err == nil && c == nil {
		err = fmt.Errorf("Component %s not found", id)
	}
	return c, err
}

// NewGetCommand is get: the Components of a namespace, or of all.
func NewGetCommand(s *session.Session) *cobra.Command {
	var format, kind string
	var all bool
	cmd := &cobra.Command{
		Use:   "get [NAME]",
		Short: "List Components with their state and message",
		Long: `get lists the Components of the reference operator in the namespace, or in
every namespace with -A: whether they are Ready, their state, age and the
message of their Ready condition (cut to one line in the table), as
flux get kustomizations does.`,
		Example: `  kubectl wavekit get -A
  wavekit get podinfo -n apps -o yaml
  wavekit get --sets -A`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := session.CheckOutputFormat(format); err != nil {
				return err
			}
			return runGet(cmd.Context(), s, args, all, format, kind)
		},
	}
	session.AddOutputFlag(cmd, &format)
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "list the Components of every namespace")
	addKindFlag(cmd, &kind)
	return cmd
}

// Summary is a Component as get prints it as YAML or JSON.
type Summary struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	Ready     string    `json:"ready"`
	State     string    `json:"state"`
	Created   time.Time `json:"created"`
	Message   string    `json:"message,omitempty"`
}

func runGet(ctx context.Context, s *session.Session, args []string, all bool, format, kind string) error {
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return err
	}
	namespace, what := cl.Namespace, "Components"
	if all {
		namespace = ""
	}
	var items []v1alpha1.Component
	switch {
	case kind != "":
		k, err := resolveKind(ctx, cl, kind)
		if err != nil {
			return err
		}
		what = k.gvk.Kind + " instances"
		if len(args) == 1 {
			c, err := k.read(ctx, cl, args[0])
			if err != nil {
				return err
			}
			items = []v1alpha1.Component{*c}
		} else if items, err = k.list(ctx, cl, namespace); err != nil {
			return err
		}
	case len(args) == 1:
		c, err := readComponent(ctx, cl, args[0])
		if err != nil {
			return err
		}
		items = []v1alpha1.Component{*c}
	default:
		var list v1alpha1.ComponentList
		if err := cl.Client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return ReadError("listing Components", err)
		}
		items = list.Items
	}
	sort.Slice(items, func(i, j int) bool {
		return items[i].Namespace+"/"+items[i].Name < items[j].Namespace+"/"+items[j].Name
	})
	summaries := make([]Summary, len(items))
	for i, c := range items {
		summaries[i] = Summarize(&c)
	}
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, summaries)
	}
	if len(summaries) == 0 {
		fmt.Fprintf(s.Stderr, "no %s found\n", what)
		return nil
	}
	return printComponents(s, summaries, all)
}

// Summarize is c as get prints it.
func Summarize(c *v1alpha1.Component) Summary {
	s := Summary{Namespace: c.Namespace, Name: c.Name, Ready: "Unknown", State: string(c.Status.State), Created: c.CreationTimestamp.Time}
	if ready := meta.FindStatusCondition(c.Status.Conditions, component.ConditionReady); ready != nil {
		s.Ready, s.Message = string(ready.Status), ready.Message
	}
	if c.Spec.Suspend {
		s.State = "Suspended"
	}
	return s
}

// MaxMessage is how much of a message a table shows.
const MaxMessage = 80

func printComponents(s *session.Session, summaries []Summary, all bool) error {
	w := session.NewTable(s.Stdout)
	header := "NAME\tREADY\tSTATE\tAGE\tMESSAGE"
	if all {
		header = "NAMESPACE\t" + header
	}
	fmt.Fprintln(w, header)
	for _, s := range summaries {
		message := strings.Join(strings.Fields(s.Message), " ")
		if len(message) > MaxMessage {
			message = message[:MaxMessage-3] + "..."
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", s.Name, s.Ready, s.State, duration.HumanDuration(time.Since(s.Created)), message)
		if all {
			row = s.Namespace + "\t" + row
		}
		fmt.Fprintln(w, row)
	}
	return w.Flush()
}

// NewTreeCommand is tree: a Component's objects by wave, with their live status.
func NewTreeCommand(s *session.Session) *cobra.Command {
	var format, kind string
	cmd := &cobra.Command{
		Use:   "tree NAMESPACE/NAME",
		Short: "Show a Component's objects by wave with their live health",
		Long: `tree lists every object of a Component's inventory, in apply order (wave by
wave), with its phase at the last pass and its live status read from the
cluster now and judged as the operator judges it (kstatus, a Job Current only
once Complete, the object's status-hint), or NotFound; as flux tree and
argocd app resources do.`,
		Example: `  kubectl wavekit tree apps/podinfo
  kubectl wavekit tree --set fleet/web`,
		Args: session.ExactArgs("NAMESPACE/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := session.CheckOutputFormat(format); err != nil {
				return err
			}
			return runTree(cmd.Context(), s, args[0], format, kind)
		},
	}
	session.AddOutputFlag(cmd, &format)
	addKindFlag(cmd, &kind)
	return cmd
}

// treeObject is an inventory item as tree prints it as YAML or JSON.
type treeObject struct {
	Wave   int16  `json:"wave"`
	Object string `json:"object"`
	Phase  string `json:"phase"`
	Live   string `json:"live"`
}

func runTree(ctx context.Context, s *session.Session, ref, format, kind string) error {
	cl, k, c, err := connectToComponentOf(ctx, s, ref, kind)
	if err != nil {
		return err
	}
	items := c.Status.Inventory
	sort.SliceStable(items, func(i, j int) bool { return items[i].ApplyOrder < items[j].ApplyOrder })
	judge, err := engine.NewJudge(c.Spec.HealthChecks)
	if err != nil {
		return err
	}
	objects := make([]treeObject, len(items))
	for i, item := range items {
		live, err := livestatus.Of(ctx, cl.Client, judge, item, s.OperatorName)
		if err != nil {
			return err
		}
		objects[i] = treeObject{Wave: item.ApplyOrder, Object: item.String(), Phase: string(item.Phase), Live: live}
	}
	if session.OutputFormat(format) != session.OutputTable {
		return session.WriteStructured(s.Stdout, format, objects)
	}
	ready := Summarize(c)
	fmt.Fprintf(s.Stdout, "%s %s/%s: %s (%s)\n", k.gvk.Kind, c.Namespace, c.Name, ready.State, strings.Join(strings.Fields(ready.Message), " "))
	if id := c.Status.LastTraceID; id != "" {
		fmt.Fprintf(s.Stdout, "Last traced Reconcile: trace %s\n", id) // docs/observability.md
	}
	printChartDependencies(s.Stdout, c.Status.Source)
	w := session.NewTable(s.Stdout)
	fmt.Fprintln(w, "WAVE\tOBJECT\tPHASE\tLIVE")
	for _, o := range objects {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", o.Wave, o.Object, o.Phase, o.Live)
	}
	return w.Flush()
}

// printChartDependencies prints the chart dependencies a Component's last
// render brought, one a line, if any.
func printChartDependencies(out io.Writer, source *manifests.SourceInfo) {
	if source == nil || len(source.Dependencies) == 0 {
		return
	}
	fmt.Fprintln(out, "Chart dependencies:")
	for _, d := range source.Dependencies {
		name := d.Name
		if d.Chart != "" {
			name += " (" + d.Chart + ")"
		}
		fmt.Fprintf(out, "  %s %s from %s\n", name, d.Version, d.Repository)
	}
}

// NewSuspendCommand is suspend, or resume when suspend is false.
func NewSuspendCommand(s *session.Session, suspend bool) *cobra.Command {
	verb, does := "suspend", "sets spec.suspend (on an instance of a defined kind, --kind, the annotation <operator-name>/suspend: \"true\"): the operator leaves the Component's objects as they are (it corrects no drift and applies no change) until resume."
	if !suspend {
		verb, does = "resume", "clears spec.suspend (on an instance, the annotation <operator-name>/suspend) and asks for a reconcile now (the <operator-name>/reconcile-requested-at annotation), as flux resume does."
	}
	var kind string
	cmd := &cobra.Command{
		Use:     verb + " NAMESPACE/NAME",
		Short:   strings.ToUpper(verb[:1]) + verb[1:] + " the reconciliation of a Component, or of an instance of a defined kind",
		Long:    verb + " " + does,
		Example: "  kubectl wavekit " + verb + " apps/podinfo\n  kubectl wavekit " + verb + " --kind databases shop/orders",
		Args:    session.ExactArgs("NAMESPACE/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSuspend(cmd.Context(), s, args[0], kind, suspend)
		},
	}
	addKindFlag(cmd, &kind)
	return cmd
}

func runSuspend(ctx context.Context, s *session.Session, ref, kind string, suspend bool) error {
	cl, k, c, err := connectToComponentOf(ctx, s, ref, kind)
	if err != nil {
		return err
	}
	verb := "suspend"
	if !suspend {
		verb = "resume"
	}
	if err := k.mayAct(ctx, cl, verb, c.Namespace, c.Name); err != nil {
		return err
	}
	annotations := map[string]any{}
	patch := map[string]any{"spec": map[string]any{"suspend": suspend}}
	if k != ownComponentKind {
		// An instance's spec is its chart's values: its suspend is an annotation.
		var value any = "true"
		if !suspend {
			value = nil
		}
		annotations[manifests.Key(s.OperatorName, instance.AnnotationSuspend)] = value
		patch = map[string]any{}
	}
	requested := ""
	if !suspend || k != ownComponentKind {
		// A resume asks for a pass now; so does an instance's suspend,
		// an annotation that changes no spec, for its status to say so.
		requested = time.Now().UTC().Format(time.RFC3339Nano)
		annotations[requestKey(s)] = requested
	}
	if len(annotations) > 0 {
		patch["metadata"] = map[string]any{"annotations": annotations}
	}
	if err := k.patch(ctx, cl, c, patch); err != nil {
		return err
	}
	if suspend {
		fmt.Fprintf(s.Stdout, "%s %s/%s suspended\n", k.gvk.Kind, c.Namespace, c.Name)
	} else {
		fmt.Fprintf(s.Stdout, "%s %s/%s resumed; reconcile requested at %s\n", k.gvk.Kind, c.Namespace, c.Name, requested)
	}
	return nil
}

// requestKey is the annotation that asks the operator for a pass now.
func requestKey(s *session.Session) string {
	return s.OperatorName + "/" + component.AnnotationReconcileRequestedAt
}

// patch sends a JSON merge patch to c, an object of k, through k's own
// resource: only the fields named change.
func (k *definedKind) patch(ctx context.Context, cl *session.Cluster, c *v1alpha1.Component, patch map[string]any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	u.SetNamespace(c.Namespace)
	u.SetName(c.Name)
	if err := cl.Client.Patch(ctx, u, client.RawPatch(types.MergePatchType, data)); err != nil {
		return ReadError(fmt.Sprintf("changing %s %s/%s", k.gvk.Kind, c.Namespace, c.Name), err)
	}
	return nil
}

// ReadError says what a Forbidden or a missing kind means.
func ReadError(what string, err error) error {
	switch {
	case meta.IsNoMatchError(err):
		return fmt.Errorf("%s: the cluster does not serve Components (%s): install the reference operator's CRD", what, v1alpha1.GroupVersion)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

type reconcileOptions struct {
	wait    bool
	force   bool
	timeout time.Duration
	kind    string
}

// NewReconcileCommand is reconcile: a pass of a Component now, and with
// --wait its outcome.
func NewReconcileCommand(s *session.Session) *cobra.Command {
	o := &reconcileOptions{}
	cmd := &cobra.Command{
		Use:   "reconcile NAMESPACE/NAME [--wait] [--force]",
		Short: "Ask the operator for a pass of a Component now",
		Long: `reconcile sets the annotation <operator-name>/reconcile-requested-at of a
Component to the current time: the operator runs a pass for each new value
(it looks at the source at once, renders if what it renders from changed,
and applies) and records it in status.lastHandledReconcileAt, as Flux's
reconcile.fluxcd.io/requestedAt. With --force it also sets
<operator-name>/force to the same time, as flux reconcile helmrelease
--force: the pass renders anew (lookup, .Capabilities and random values
made again) and writes every object. With --wait it waits for the
outcome of that pass: until the operator handled the request and the
Component is no longer Reconciling at its generation. It exits 0 if the
Component is then Ready, 1 with its message if it is not (Stalled, or
suspended), and 1 with what it waits for, or a hint when the operator did
not handle the request at all, after --timeout.`,
		Example: `  kubectl wavekit reconcile apps/podinfo --wait`,
		Args:    session.ExactArgs("NAMESPACE/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), s, args[0])
		},
	}
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait for the outcome of the requested pass, and report the Ready condition")
	cmd.Flags().BoolVar(&o.force, "force", false, "render anew and write every object (the <operator-name>/force annotation)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long --wait waits")
	addKindFlag(cmd, &o.kind)
	return cmd
}

func (o *reconcileOptions) run(ctx context.Context, s *session.Session, ref string) error {
	cl, k, c, err := connectToComponentOf(ctx, s, ref, o.kind)
	if err != nil {
		return err
	}
	if err := k.mayAct(ctx, cl, "reconcile", c.Namespace, c.Name); err != nil {
		return err
	}
	requested := time.Now().UTC().Format(time.RFC3339Nano)
	annotations := map[string]string{requestKey(s): requested}
	asked := "reconcile"
	if o.force {
		annotations[s.OperatorName+"/"+component.AnnotationForce] = requested
		asked = "forced reconcile"
	}
	patch := map[string]any{"metadata": map[string]any{"annotations": annotations}}
	if err := k.patch(ctx, cl, c, patch); err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "%s %s/%s: %s requested at %s\n", k.gvk.Kind, c.Namespace, c.Name, asked, requested)
	if !o.wait {
		return nil
	}
	outcome, err := o.waitForOutcome(ctx, s, cl, k, c, requested)
	if err != nil {
		return err
	}
	summary := Summarize(outcome)
	if summary.Ready != string(metav1.ConditionTrue) {
		return fmt.Errorf("%s %s/%s handled the request and is not Ready (%s): %s", k.gvk.Kind, c.Namespace, c.Name, summary.State, summary.Message)
	}
	fmt.Fprintf(s.Stdout, "%s %s/%s is Ready: %s\n", k.gvk.Kind, c.Namespace, c.Name, summary.Message)
	return nil
}

// waitForOutcome watches the Component until its status says the outcome
// of the pass that handled the request: the request recorded, and the
// Component no longer Reconciling at its generation. The status write that
// records the request carries that pass's conditions, which may say it
// works on (a wave it waits for); the outcome comes with a later write.
func (o *reconcileOptions) waitForOutcome(ctx context.Context, s *session.Session, cl *session.Cluster, k *definedKind, c *v1alpha1.Component, requested string) (*v1alpha1.Component, error) {
	var handled *v1alpha1.Component
	outcome, err := k.watch(ctx, cl, c, o.timeout, func(got *v1alpha1.Component) bool {
		if got.Status.LastHandledReconcileAt != requested {
			return false
		}
		if settled(got) {
			return true
		}
		if handled == nil {
			fmt.Fprintf(s.Stdout, "%s %s/%s: the operator handled the request; waiting for its outcome (%s)\n",
				k.gvk.Kind, c.Namespace, c.Name, oneLineMessage(got))
		}
		handled = got
		return false
	})
	switch {
	case err == nil:
		return outcome, nil
	case !errors.Is(err, context.DeadlineExceeded):
		return nil, err
	case handled != nil:
		return nil, fmt.Errorf("%s %s/%s handled the request and has no outcome within %s: still %s", k.gvk.Kind, c.Namespace, c.Name, o.timeout, oneLineMessage(handled))
	}
	return nil, fmt.Errorf("%s %s/%s: the operator did not handle the reconcile request within %s: "+
		"is it running, and does it watch namespace %s? (kubectl get pods -A -l app.kubernetes.io/name=component-operator, and its logs)",
		k.gvk.Kind, c.Namespace, c.Name, o.timeout, c.Namespace)
}

// settled tells whether the Component's status says an outcome at its
// generation: a Ready condition of the generation, and no Reconciling
// condition that is True (Ready, Stalled, or suspended).
func settled(c *v1alpha1.Component) bool {
	ready := meta.FindStatusCondition(c.Status.Conditions, component.ConditionReady)
	if ready == nil || ready.ObservedGeneration != c.Generation {
		return false
	}
	return !meta.IsStatusConditionTrue(c.Status.Conditions, component.ConditionReconciling)
}

// oneLineMessage is the Component's state and Ready message on one line.
func oneLineMessage(c *v1alpha1.Component) string {
	s := Summarize(c)
	return s.State + ": " + strings.Join(strings.Fields(s.Message), " ")
}

// watch watches c, an object of k, until done says so of its latest state
// as a Component, or timeout passes (context.DeadlineExceeded).
func (k *definedKind) watch(ctx context.Context, cl *session.Cluster, c *v1alpha1.Component, timeout time.Duration, done func(*v1alpha1.Component) bool) (*v1alpha1.Component, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wc, err := client.NewWithWatch(cl.Config, client.Options{Scheme: cl.Scheme, Mapper: cl.Client.RESTMapper()})
	if err != nil {
		return nil, err
	}
	what := k.gvk.Kind + " " + c.Namespace + "/" + c.Name
	byName := []client.ListOption{client.InNamespace(c.Namespace), client.MatchingFields{"metadata.name": c.Name}}
	// doneWith tells whether done says so of u; a u that is no Component
	// of k is an error.
	var decodeErr error
	doneWith := func(u *unstructured.Unstructured) (*v1alpha1.Component, bool) {
		got, err := k.asComponent(u)
		if err != nil {
			decodeErr = err
			return nil, true
		}
		return got, done(got)
	}
	for {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
		if err := wc.List(ctx, list, byName...); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, ReadError("reading "+what, err)
		}
		if len(list.Items) == 1 {
			if got, ok := doneWith(&list.Items[0]); ok {
				return got, decodeErr
			}
		}
		watched := &unstructured.UnstructuredList{}
		watched.SetGroupVersionKind(list.GroupVersionKind())
		w, err := wc.Watch(ctx, watched, append(byName, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.GetResourceVersion()}})...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, ReadError("watching "+what, err)
		}
		for event := range w.ResultChan() {
			if u, ok := event.Object.(*unstructured.Unstructured); ok {
				if got, ok := doneWith(u); ok {
					w.Stop()
					return got, decodeErr
				}
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}
