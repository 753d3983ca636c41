package layout_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxFiles is how many non-test Go files a package of pkg/ may hold: past
// it, a reader opens a list too long to find a file by its name, and the
// package holds more than one job.
const maxFiles = 25

// oversized are the packages of pkg/ allowed past maxFiles for a while,
// and why: a package being split into packages of packages. None is now
// (#77 split pkg/component and pkg/engine). The rule fails for an allowed
// package that fits again, so that an allowance goes with its split.
var oversized = map[string]string{}

// testHelpers is where the test helpers live: fake servers, counters, the
// soak's history and invariants, the test clusters. Product code never
// imports them.
const testHelpers = "internal/testing"

// goPackage is a directory of Go files of the module.
type goPackage struct {
	dir      string   // from the module root, with slashes
	files    []string // the names of its non-test Go files
	hasDoc   bool     // it has a doc.go
	imports  map[string][]string
	testOnly bool // only _test.go files: a suite, not a package to import
}

// readPackages parses the package clause and imports of every Go file of
// the module at root, leaving out testdata, hidden directories, _output
// and nested modules (a directory with its own go.mod).
func readPackages(root string) ([]*goPackage, error) {
	byDir := map[string]*goPackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "_output" || name == "vendor" || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		p := byDir[dir]
		if p == nil {
			p = &goPackage{dir: dir, imports: map[string][]string{}, testOnly: true}
			byDir[dir] = p
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", path, err)
		}
		p.testOnly = false
		p.files = append(p.files, d.Name())
		p.hasDoc = p.hasDoc || d.Name() == "doc.go"
		for _, spec := range file.Imports {
			imported, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", path, spec.Path.Value, err)
			}
			p.imports[d.Name()] = append(p.imports[d.Name()], imported)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var packages []*goPackage
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		packages = append(packages, byDir[dir])
	}
	return packages, nil
}

// tooManyFiles names the packages of pkg/ with more than maxFiles non-test
// Go files that oversized does not allow, and the allowed ones that fit.
func tooManyFiles(packages []*goPackage) []string {
	var problems []string
	for _, p := range packages {
		if !strings.HasPrefix(p.dir+"/", "pkg/") {
			continue
		}
		why, allowed := oversized[p.dir]
		switch n := len(p.files); {
		case n > maxFiles && !allowed:
			problems = append(problems, fmt.Sprintf("%s has %d non-test Go files, more than %d: split it into packages of one job each", p.dir, n, maxFiles))
		case n <= maxFiles && allowed:
			problems = append(problems, fmt.Sprintf("%s has %d non-test Go files now: remove its allowance (%s)", p.dir, n, why))
		}
	}
	return problems
}

// testHelperImports names the non-test files outside testHelpers that
// import a package under it, for the module module.
func testHelperImports(packages []*goPackage, module string) []string {
	helpers := module + "/" + testHelpers
	var problems []string
	for _, p := range packages {
		if p.dir == testHelpers || strings.HasPrefix(p.dir, testHelpers+"/") {
			continue
		}
		for _, file := range slices.Sorted(maps.Keys(p.imports)) {
			for _, imported := range p.imports[file] {
				if imported == helpers || strings.HasPrefix(imported, helpers+"/") {
					problems = append(problems, fmt.Sprintf("%s/%s imports the test helper %s: only _test.go files may", p.dir, file, imported))
				}
			}
		}
	}
	return problems
}

// internalImports names the non-test files of pkg/ that import a package
// of the module's internal/: a framework user's operator, built on pkg/,
// must not depend on the reference operator's insides.
func internalImports(packages []*goPackage, module string) []string {
	internal := module + "/internal/"
	var problems []string
	for _, p := range packages {
		if !strings.HasPrefix(p.dir+"/", "pkg/") {
			continue
		}
		for _, file := range slices.Sorted(maps.Keys(p.imports)) {
			for _, imported := range p.imports[file] {
				if strings.HasPrefix(imported, internal) {
					problems = append(problems, fmt.Sprintf("%s/%s imports %s: pkg/ may import no internal/ package", p.dir, file, imported))
				}
			}
		}
	}
	return problems
}

// withoutDoc names the packages (not suites of _test.go files alone)
// without a doc.go, the file that says what the package owns.
func withoutDoc(packages []*goPackage) []string {
	var problems []string
	for _, p := range packages {
		if !p.testOnly && !p.hasDoc {
			problems = append(problems, fmt.Sprintf("%s has no doc.go: say there what the package owns", p.dir))
		}
	}
	return problems
}

// modulePath is the module path of root's go.mod.
func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if module, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(module), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod names no module", root)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
