package helm

import (
	"log"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v2"
	helmrelease "helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// This file is the fast path of collect: it gives the same objects in the
// same order as releaseutil.SortManifests followed by manifests.DecodeObjects
// on every document (the Helm path, collectWithHelm), but parses each YAML
// document once, straight into the values unstructured holds, where the Helm
// path parses it twice as YAML and three times as JSON (SortManifests' head,
// then YAMLToJSON and the JSON decode into unstructured); and it sorts
// without Helm's regular expression and per-comparison allocations.
//
// It only takes documents where the equivalence is plain: a YAML mapping (or
// an empty document) whose keys stay distinct as JSON keys, scalars that
// survive the JSON round trip unchanged (valid UTF-8 strings, booleans, null,
// finite numbers within int64 or float64), a non-empty string kind, a
// metadata mapping whose name and annotations are strings, no '\r' and no
// document separator left in the text. For anything else (invalid YAML, a
// list or scalar at the top level, a missing kind, a numeric annotation, ...)
// sortRendered reports false and collect takes the Helm path for the whole
// render, which gives the objects or the error it always gave. The specs in
// documents_test.go and FuzzDecodeOnce compare both paths.

// renderedDoc is one document of a rendered template, decoded.
type renderedDoc struct {
	kind    string
	objects []*unstructured.Unstructured
	// hook is set for a document with a helm.sh/hook annotation, as
	// SortManifests builds it.
	hook *helmrelease.Hook
	// unknownHook is set for a hook with an unknown event, which Helm
	// skips; hook.Manifest is then the helm.sh/hook value, for the log.
	unknownHook bool
}

// sortRendered splits the rendered files into documents and decodes them:
// the ordinary manifests and the hooks, each in Helm's install order
// (releaseutil.InstallOrder by kind, stable over file name and document
// order). Documents with an unknown hook event are left out, as Helm does.
// ok is false when a document is outside what this fast path handles; the
// caller then uses the Helm path.
func sortRendered(files map[string]string) (list, hooks []renderedDoc, ok bool) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var unknownHooks []string
	for _, p := range paths {
		content := files[p]
		if strings.HasPrefix(path.Base(p), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		for _, doc := range splitManifests(content) {
			d, ok := decodeRendered(p, doc)
			if !ok {
				return nil, nil, false
			}
			switch {
			case d.hook == nil:
				list = append(list, d)
			case d.unknownHook:
				unknownHooks = append(unknownHooks, d.hook.Manifest)
			default:
				hooks = append(hooks, d)
			}
		}
	}
	for _, hookTypes := range unknownHooks {
		// What SortManifests logs for such a hook.
		log.Printf("info: skipping unknown hook: %q", hookTypes)
	}
	slices.SortStableFunc(list, compareKinds)
	slices.SortStableFunc(hooks, compareKinds)
	return list, hooks, true
}

// installRank is the position of a kind in releaseutil.InstallOrder.
var installRank = func() map[string]int {
	rank := make(map[string]int, len(releaseutil.InstallOrder))
	for i, kind := range releaseutil.InstallOrder {
		rank[kind] = i
	}
	return rank
}()

// compareKinds orders documents as Helm's sort by kind does: the kinds of
// InstallOrder in that order, then unknown kinds alphabetically.
func compareKinds(a, b renderedDoc) int {
	ra, aKnown := installRank[a.kind]
	rb, bKnown := installRank[b.kind]
	switch {
	case aKnown && bKnown:
		return ra - rb
	case aKnown:
		return -1
	case bKnown:
		return 1
	default:
		return strings.Compare(a.kind, b.kind)
	}
}

// splitManifests splits a rendered file into documents exactly as
// releaseutil.SplitManifests does (the regular expression
// `(?:^|\s*\n)---\s*` on the trimmed text, empty pieces dropped, each piece
// trimmed), in file order, without the regular expression.
func splitManifests(content string) []string {
	s := strings.TrimSpace(content)
	var docs []string
	keep := func(piece string) {
		if piece != "" {
			docs = append(docs, strings.TrimSpace(piece))
		}
	}
	begin, from := 0, 0
	if strings.HasPrefix(s, "---") {
		keep(s[:0])
		begin = 3 + reSpaces(s[3:])
		from = begin
	}
	for {
		i := strings.Index(s[from:], "\n---")
		if i < 0 {
			break
		}
		i += from
		// The match starts where the run of \s before the newline starts.
		start := i
		for start > from && isRESpace(s[start-1]) {
			start--
		}
		keep(s[begin:start])
		begin = i + 4 + reSpaces(s[i+4:])
		from = begin
	}
	keep(s[begin:])
	return docs
}

// isRESpace reports whether c is in the regular expression class \s.
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// reSpaces is the length of the run of \s at the start of s.
func reSpaces(s string) int {
	n := 0
	for n < len(s) && isRESpace(s[n]) {
		n++
	}
	return n
}

// Helm's hook events by annotation value (releaseutil's table).
var helmHookEvents = map[string]helmrelease.HookEvent{
	helmrelease.HookPreInstall.String():   helmrelease.HookPreInstall,
	helmrelease.HookPostInstall.String():  helmrelease.HookPostInstall,
	helmrelease.HookPreDelete.String():    helmrelease.HookPreDelete,
	helmrelease.HookPostDelete.String():   helmrelease.HookPostDelete,
	helmrelease.HookPreUpgrade.String():   helmrelease.HookPreUpgrade,
	helmrelease.HookPostUpgrade.String():  helmrelease.HookPostUpgrade,
	helmrelease.HookPreRollback.String():  helmrelease.HookPreRollback,
	helmrelease.HookPostRollback.String(): helmrelease.HookPostRollback,
	helmrelease.HookTest.String():         helmrelease.HookTest,
	"test-success":                        helmrelease.HookTest,
}

// decodeRendered decodes one document of file p.
func decodeRendered(p, doc string) (renderedDoc, bool) {
	// manifests.DecodeObjects reads the document line by line: a separator
	// line would start another document and "\r\n" would become "\n".
	if strings.HasPrefix(doc, "---") || strings.Contains(doc, "\n---") || strings.ContainsRune(doc, '\r') {
		return renderedDoc{}, false
	}
	var raw any
	// DecodeObjects' line reader ends the last line with "\n".
	if err := yaml.Unmarshal([]byte(doc+"\n"), &raw); err != nil {
		return renderedDoc{}, false
	}
	if raw == nil {
		return renderedDoc{}, true
	}
	value, ok := jsonValue(raw, 0)
	if !ok {
		return renderedDoc{}, false
	}
	object, ok := value.(map[string]any)
	if !ok {
		return renderedDoc{}, false
	}
	if len(object) == 0 {
		return renderedDoc{}, true
	}
	h, ok := readHead(object)
	if !ok {
		return renderedDoc{}, false
	}
	d := renderedDoc{kind: h.kind}
	objects, err := manifests.ListItems(&unstructured.Unstructured{Object: object})
	if err != nil {
		return renderedDoc{}, false
	}
	d.objects = objects
	hookTypes, isHook := h.annotations[helmrelease.HookAnnotation]
	if !isHook {
		return d, true
	}
	d.hook = &helmrelease.Hook{
		Name:              h.name,
		Kind:              h.kind,
		Path:              p,
		Manifest:          doc,
		Events:            []helmrelease.HookEvent{},
		DeletePolicies:    []helmrelease.HookDeletePolicy{},
		OutputLogPolicies: []helmrelease.HookOutputLogPolicy{},
	}
	if w, err := strconv.Atoi(h.annotations[helmrelease.HookWeightAnnotation]); err == nil {
		d.hook.Weight = w
	}
	for _, hookType := range strings.Split(hookTypes, ",") {
		e, known := helmHookEvents[strings.ToLower(strings.TrimSpace(hookType))]
		if !known {
			d.hook.Manifest, d.unknownHook = hookTypes, true
			return d, true
		}
		d.hook.Events = append(d.hook.Events, e)
	}
	for _, policy := range annotationValues(h.annotations, helmrelease.HookDeleteAnnotation) {
		d.hook.DeletePolicies = append(d.hook.DeletePolicies, helmrelease.HookDeletePolicy(policy))
	}
	for _, policy := range annotationValues(h.annotations, helmrelease.HookOutputLogAnnotation) {
		d.hook.OutputLogPolicies = append(d.hook.OutputLogPolicies, helmrelease.HookOutputLogPolicy(policy))
	}
	return d, true
}

// annotationValues splits a comma-separated annotation as Helm does.
func annotationValues(annotations map[string]string, key string) []string {
	value, ok := annotations[key]
	if !ok {
		return nil
	}
	values := strings.Split(value, ",")
	for i, v := range values {
		values[i] = strings.ToLower(strings.TrimSpace(v))
	}
	return values
}

// head is what SortManifests reads of a document (releaseutil.SimpleHead).
type head struct {
	kind, name  string
	annotations map[string]string
}

// readHead reads the head of a decoded document. It fails where Helm's head
// could differ from the object: a field name that differs from apiVersion,
// kind, metadata, name or annotations only in case (Helm's JSON decoding
// ignores case), a head field that is not a string (Helm turns numbers into
// strings, or fails), a missing kind (decoding fails), and a line break in a
// value Helm uses (Helm parses the document without the final "\n").
func readHead(object map[string]any) (head, bool) {
	var h head
	if !exactFields(object, "apiVersion", "kind", "metadata") {
		return h, false
	}
	if v, ok := object["apiVersion"]; ok && v != nil {
		if _, ok := v.(string); !ok {
			return h, false
		}
	}
	kind, ok := object["kind"].(string)
	if !ok || kind == "" || strings.Contains(kind, "\n") {
		return h, false
	}
	h.kind = kind
	metadata, ok := object["metadata"]
	if !ok || metadata == nil {
		return h, true
	}
	meta, ok := metadata.(map[string]any)
	if !ok || !exactFields(meta, "name", "annotations") {
		return h, false
	}
	if v, ok := meta["name"]; ok && v != nil {
		if h.name, ok = v.(string); !ok || strings.Contains(h.name, "\n") {
			return h, false
		}
	}
	annotations, ok := meta["annotations"]
	if !ok || annotations == nil {
		return h, true
	}
	m, ok := annotations.(map[string]any)
	if !ok {
		return h, false
	}
	h.annotations = make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return h, false
		}
		h.annotations[k] = s
	}
	for _, key := range []string{helmrelease.HookAnnotation, helmrelease.HookWeightAnnotation, helmrelease.HookDeleteAnnotation} {
		if strings.Contains(h.annotations[key], "\n") {
			return h, false
		}
	}
	return h, true
}

// exactFields reports whether every key of m that matches one of names
// case-insensitively is spelt exactly as that name.
func exactFields(m map[string]any, names ...string) bool {
	for k := range m {
		for _, name := range names {
			if k != name && strings.EqualFold(k, name) {
				return false
			}
		}
	}
	return true
}

// maxDepth bounds the nesting the fast path takes (encoding/json refuses
// deeper documents than this anyway only beyond 10000 levels).
const maxDepth = 1000

// jsonValue converts a value decoded by YAML into what a JSON round trip
// through unstructured.Unstructured gives (sigs.k8s.io/yaml.YAMLToJSON, then
// the apimachinery JSON decoder that keeps integers as int64): string keys,
// int64 for every number whose JSON form is an integer, float64 otherwise.
// It fails for what it does not convert exactly (keys that end equal,
// invalid UTF-8, NaN and infinities, integers beyond int64, other types).
func jsonValue(v any, depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	switch t := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			key, ok := jsonKey(k)
			if !ok {
				return nil, false
			}
			if _, taken := out[key]; taken {
				return nil, false // which value wins is random in YAMLToJSON
			}
			if out[key], ok = jsonValue(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			var ok bool
			if out[i], ok = jsonValue(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case string:
		return t, utf8.ValidString(t)
	case nil, bool:
		return t, true
	case int:
		return int64(t), true
	case int64:
		return t, true
	case uint64:
		if t > math.MaxInt64 {
			return nil, false
		}
		return int64(t), true
	case float64:
		return jsonFloat(t)
	default:
		return nil, false
	}
}

// jsonKey converts a mapping key as sigs.k8s.io/yaml.YAMLToJSON does (YAML
// 1.1 reads keys such as on, off, yes, no and 1 as booleans and numbers).
func jsonKey(k any) (string, bool) {
	switch t := k.(type) {
	case string:
		return t, utf8.ValidString(t)
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		switch s := strconv.FormatFloat(t, 'g', -1, 32); s {
		case "+Inf":
			return ".inf", true
		case "-Inf":
			return "-.inf", true
		case "NaN":
			return ".nan", true
		default:
			return s, true
		}
	default:
		return "", false
	}
}

// jsonFloat is what a float64 becomes through encoding/json and back with
// integers kept: an int64 when its JSON text is an integer, else itself.
func jsonFloat(f float64) (any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return f, true // exponent form
	}
	if f != math.Trunc(f) {
		return f, true
	}
	if i, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64); err == nil {
		return i, true
	}
	return f, true
}
