package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// planChart is a chart whose version 2.0.0 updates one ConfigMap, leaves
// one alone, adds one, drops one, and runs a post-upgrade hook that is
// deleted once it succeeded: every kind of step a preview shows.
func planChart(version string) localrepo.Chart {
	cm := func(suffix, data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}" + suffix + "\n" + data
	}
	return localrepo.Chart{Name: "plan", Version: version, Templates: map[string]string{
		"main.yaml": cm("", "data:\n  version: {{ .Chart.Version | quote }}\n"),
		"keep.yaml": cm("-keep", "data:\n  kept: \"yes\"\n"),
		"old.yaml":  `{{- if eq .Chart.Version "1.0.0" }}` + "\n" + cm("-old", "data: {}\n") + "{{- end }}\n",
		"new.yaml":  `{{- if ne .Chart.Version "1.0.0" }}` + "\n" + cm("-new", "data: {}\n") + "{{- end }}\n",
		"hook.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n" +
			"    helm.sh/hook: post-upgrade\n    helm.sh/hook-delete-policy: hook-succeeded\ndata: {}\n",
	}}
}

// previewStep is one step of wavekit diff -o json.
type previewStep struct {
	Group, Stage, Action, Reason string
	Wave                         int
	Object                       struct{ Kind, Namespace, Name string }
}

// previewSteps parses diff -o json and words each step on a line.
func previewSteps(out string) []string {
	GinkgoHelper()
	var report struct{ Steps []previewStep }
	Expect(json.Unmarshal([]byte(out), &report)).To(Succeed(), out)
	var lines []string
	for _, s := range report.Steps {
		line := fmt.Sprintf("%s %d %s: %s %s/%s", s.Group, s.Wave, s.Stage, s.Action, s.Object.Kind, s.Object.Name)
		if s.Reason != "" {
			line += " (" + s.Reason + ")"
		}
		lines = append(lines, line)
	}
	return lines
}

// configMapVersions maps the names of ConfigMaps in ns that start with
// prefix to their resourceVersions.
func configMapVersions(list *corev1.ConfigMapList, prefix string) map[string]string {
	out := map[string]string{}
	for _, cm := range list.Items {
		if strings.HasPrefix(cm.Name, prefix) {
			out[cm.Name] = cm.ResourceVersion
		}
	}
	return out
}

// reasonsFor lists the Events about the object named name in ns as
// "Reason: note".
func reasonsFor(ctx context.Context, env *testcluster.Env, ns, name string) []string {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Name == name {
			out = append(out, e.Reason+": "+e.Note)
		}
	}
	return out
}
