package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"golang.org/x/mod/modfile"
)

// templates are the files of a generated project: common/ for every project
// and one folder per generator. Paths may hold __version__, __kind__,
// __binary__ and __sample__ (group_version_kind); every file ends in .tmpl, which is dropped. The templates use
// {% and %} as delimiters so that Helm and Go templates pass through.
//
//go:embed all:templates
var templates embed.FS

// Generate validates opts and writes the project into dir, which must not
// exist or be empty. Every file is rendered before the first one is
// written, so a failure leaves dir as it was (or absent). It returns the
// slash paths of the files written, sorted.
func Generate(dir string, opts Options) ([]string, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := checkTarget(dir); err != nil {
		return nil, err
	}
	files, err := Render(opts)
	if err != nil {
		return nil, err
	}
	return writeFiles(dir, files)
}

// Render returns the files of the project for validated opts, by slash path.
func Render(opts Options) (map[string][]byte, error) {
	opts = opts.withDefaults()
	wavekit, err := opts.Wavekit()
	if err != nil {
		return nil, err
	}
	opts.WavekitVersion, opts.WavekitReplace = wavekit.Version, wavekit.Replace
	deps, err := loadDeps(opts.WavekitReplace)
	if err != nil {
		return nil, err
	}
	d := newData(opts, requireLines(deps.mod))
	files := map[string][]byte{
		"go.sum":            []byte(deps.sum),
		"hack/tools/go.mod": []byte(toolsModule(deps.toolsMod, opts.Module)),
		"hack/tools/go.sum": []byte(deps.toolsSum),
	}
	for _, root := range []string{"templates/common", "templates/" + opts.Generator} {
		if err := renderTree(root, d, files); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// renderTree renders every template under root into files.
func renderTree(root string, d data, files map[string][]byte) error {
	return fs.WalkDir(templates, root, func(p string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		text, err := templates.ReadFile(p)
		if err != nil {
			return fmt.Errorf("reading template %s: %w", p, err)
		}
		out, err := renderFile(p, string(text), d)
		if err != nil {
			return err
		}
		files[outputPath(strings.TrimPrefix(p, root+"/"), d)] = out
		return nil
	})
}

// renderFile executes one template.
func renderFile(name, text string, d data) ([]byte, error) {
	t, err := template.New(name).Delims("{%", "%}").Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("parsing template %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return nil, fmt.Errorf("rendering template %s: %w", name, err)
	}
	if !strings.HasSuffix(name, ".go.tmpl") {
		return buf.Bytes(), nil
	}
	// Names of different lengths move the alignment gofmt wants.
	formatted, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the Go code of template %s: %w", name, err)
	}
	return formatted, nil
}

// funcs are the template functions of the project templates.
var funcs = template.FuncMap{
	"lower": strings.ToLower,
	"quote": func(s string) string { return fmt.Sprintf("%q", s) },
	// gomodQuote quotes a go.mod token (a path with spaces) where go.mod needs it.
	"gomodQuote": modfile.AutoQuote,
}

// outputPath maps a template path to the path of the generated file.
func outputPath(p string, d data) string {
	p = strings.TrimSuffix(p, ".tmpl")
	r := strings.NewReplacer("__version__", d.Version, "__kind__", d.KindLower, "__binary__", d.Binary,
		"__sample__", d.Group+"_"+d.Version+"_"+d.KindLower)
	return r.Replace(p)
}

// writeFiles writes files below dir and returns their sorted slash paths.
func writeFiles(dir string, files map[string][]byte) ([]string, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, fmt.Errorf("creating directory for %s: %w", target, err)
		}
		mode := os.FileMode(0o644)
		if path.Ext(p) == ".sh" {
			mode = 0o755
		}
		if err := os.WriteFile(target, files[p], mode); err != nil {
			return nil, fmt.Errorf("writing %s: %w", target, err)
		}
	}
	return paths, nil
}
