// Command layers measures how a Go package reads: for each package its
// files and lines, and the deepest chain of its own files, where a file
// depends on another file of the package when it names something declared
// there (a type, function, method, field, variable or constant). Files
// that name each other count as one layer. With -walk it counts the lines
// a reader opens to follow a path of functions.
//
//	cd hack/layers && go run . ./pkg/component/... ./pkg/engine/...
//	cd hack/layers && go run . -walk walk.txt ./pkg/...
//
// Patterns are relative to -dir, the module's root (../.. by default).
//
// A walk file holds one function a line, as package path (relative to the
// module) and name, "pkg/component.Reconciler.Reconcile" or
// "pkg/engine/internal/plan.Apply"; the tool prints each one's file and lines, and
// the sum of the lines of the distinct files they are in. walks/ holds the
// walk of one Reconcile that docs/architecture.md measures, in today's
// names and in those before #77 split pkg/component and pkg/engine.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	walk := flag.String("walk", "", "a file of functions, one a line, whose path a reader follows")
	chains := flag.Bool("chain", false, "print the files of each package's deepest chain")
	edges := flag.Bool("edges", false, "print, for each file, the files of its package it names")
	apiList := flag.Bool("api", false, "print each package's exported names, their kinds and types, aliases resolved")
	dir := flag.String("dir", "../..", "the root of the module whose packages are measured")
	flag.Parse()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule, Dir: *dir}
	pkgs, err := packages.Load(cfg, flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if packages.PrintErrors(pkgs) > 0 {
		os.Exit(1)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].PkgPath < pkgs[j].PkgPath })
	if *apiList {
		for _, p := range pkgs {
			printAPI(p)
		}
		return
	}
	if *walk != "" {
		if err := walkLines(pkgs, *walk); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	fmt.Printf("%-52s %5s %6s %6s %6s\n", "package", "files", "lines", "depth", "cycle")
	for _, p := range pkgs {
		g := fileGraph(p)
		depth, chain, cycle := g.deepest()
		fmt.Printf("%-52s %5d %6d %6d %6d\n", rel(p), len(p.Syntax), lines(p), depth, cycle)
		if *chains {
			fmt.Printf("    %s\n", strings.Join(chain, " → "))
		}
		if *edges {
			g.print()
		}
	}
}

func rel(p *packages.Package) string {
	if p.Module == nil {
		return p.PkgPath
	}
	return strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, p.Module.Path), "/")
}

func lines(p *packages.Package) int {
	n := 0
	for _, f := range p.Syntax {
		n += p.Fset.Position(f.End()).Line
	}
	return n
}

// graph is the files of one package and which name which.
type graph struct {
	names []string
	edges []map[int]bool
}

func fileGraph(p *packages.Package) *graph {
	g := &graph{}
	index := map[string]int{}
	for _, f := range p.Syntax {
		name := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		index[name] = len(g.names)
		g.names = append(g.names, name)
		g.edges = append(g.edges, map[int]bool{})
	}
	fileOf := func(pos token.Pos) (int, bool) {
		i, ok := index[filepath.Base(p.Fset.Position(pos).Filename)]
		return i, ok
	}
	for _, f := range p.Syntax {
		from, _ := fileOf(f.Pos())
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
				return true
			}
			if to, ok := fileOf(obj.Pos()); ok && to != from {
				g.edges[from][to] = true
			}
			return true
		})
	}
	return g
}

// deepest condenses the files that name each other (Tarjan) and returns
// the longest chain of the condensed graph, counted in layers, one of its
// chains, and the size of the largest group of files that name each other.
func (g *graph) deepest() (int, []string, int) {
	n := len(g.names)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var comps [][]int
	next := 0
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for w := range g.edges[v] {
			if index[w] < 0 {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = len(comps)
				c = append(c, w)
				if w == v {
					break
				}
			}
			comps = append(comps, c)
		}
	}
	for v := range n {
		if index[v] < 0 {
			strong(v)
		}
	}
	cycle := 0
	for _, c := range comps {
		cycle = max(cycle, len(c))
	}
	// Tarjan emits components in reverse topological order: a component's
	// successors come before it.
	depth := make([]int, len(comps))
	nextComp := make([]int, len(comps))
	best := -1
	for ci, c := range comps {
		depth[ci], nextComp[ci] = 1, -1
		for _, v := range c {
			for w := range g.edges[v] {
				if cw := comp[w]; cw != ci && depth[cw]+1 > depth[ci] {
					depth[ci], nextComp[ci] = depth[cw]+1, cw
				}
			}
		}
		if best < 0 || depth[ci] > depth[best] {
			best = ci
		}
	}
	if best < 0 {
		return 0, nil, 0
	}
	var chain []string
	for ci := best; ci >= 0; ci = nextComp[ci] {
		var names []string
		for _, v := range comps[ci] {
			names = append(names, g.names[v])
		}
		sort.Strings(names)
		chain = append(chain, strings.Join(names, "+"))
	}
	return depth[best], chain, cycle
}

// walkLines prints each function of the walk with its file and lines, and
// the lines of the distinct files a reader opens.
func walkLines(pkgs []*packages.Package, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open the walk: %w", err)
	}
	defer f.Close()
	byPath := map[string]*packages.Package{}
	for _, p := range pkgs {
		byPath[rel(p)] = p
	}
	files := map[string]int{}
	packagesOnPath := map[string]int{}
	funcLines := 0
	step := 0
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		line := strings.TrimSpace(scan.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		dot := strings.Index(line[strings.LastIndex(line, "/")+1:], ".") + strings.LastIndex(line, "/") + 1
		p := byPath[line[:dot]]
		if p == nil {
			return fmt.Errorf("%s: package %s is not loaded", line, line[:dot])
		}
		decl := findFunc(p, line[dot+1:])
		if decl == nil {
			return fmt.Errorf("%s: no such function", line)
		}
		start, end := p.Fset.Position(decl.Pos()), p.Fset.Position(decl.End())
		file := filepath.Join(rel(p), filepath.Base(start.Filename))
		files[file] = p.Fset.File(decl.Pos()).LineCount()
		packagesOnPath[rel(p)] = len(p.Syntax)
		step++
		funcLines += end.Line - start.Line + 1
		fmt.Printf("%2d. %-60s %s:%d (%d lines)\n", step, line, file, start.Line, end.Line-start.Line+1)
	}
	if err := scan.Err(); err != nil {
		return fmt.Errorf("read the walk: %w", err)
	}
	total := 0
	for _, n := range files {
		total += n
	}
	fmt.Printf("%d functions, %d lines of functions, in %d files of %d lines\n", step, funcLines, len(files), total)
	names, sum := make([]string, 0, len(packagesOnPath)), 0
	for name, n := range packagesOnPath {
		names = append(names, fmt.Sprintf("%s (%d)", name, n))
		sum += n
	}
	sort.Strings(names)
	fmt.Printf("in %d packages of %d files: %s\n", len(names), sum, strings.Join(names, ", "))
	return nil
}

// findFunc finds "name" or "Type.name" among the package's declarations.
func findFunc(p *packages.Package, name string) *ast.FuncDecl {
	recv, fn, ok := strings.Cut(name, ".")
	if !ok {
		recv, fn = "", name
	}
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != fn {
				continue
			}
			if recvName(fd) == recv {
				return fd
			}
		}
	}
	return nil
}

func recvName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return types.ExprString(t)
		}
	}
}

func (g *graph) print() {
	for i, name := range g.names {
		var to []string
		for j := range g.edges[i] {
			to = append(to, g.names[j])
		}
		sort.Strings(to)
		fmt.Printf("    %s → %s\n", name, strings.Join(to, " "))
	}
}

// printAPI prints the exported names of p, one a line, each as what a user
// of the package gets: a type alias as the type it stands for, with its
// exported fields and methods, so that two versions of a package compare
// line by line.
func printAPI(p *packages.Package) {
	scope := p.Types.Scope()
	// A package's internal packages are itself to its users: their types
	// are named by the package's name.
	qualifier := func(other *types.Package) string {
		if p.Module != nil && strings.HasPrefix(other.Path(), p.PkgPath+"/internal/") {
			return p.Name
		}
		return other.Name()
	}
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.TypeName:
			t := types.Unalias(o.Type())
			fmt.Printf("%s type %s %s\n", rel(p), name, exportedShape(t.Underlying(), qualifier))
			if named, ok := t.(*types.Named); ok {
				mset := types.NewMethodSet(types.NewPointer(named))
				for i := range mset.Len() {
					m := mset.At(i).Obj()
					if m.Exported() {
						fmt.Printf("%s method %s.%s %s\n", rel(p), name, m.Name(), types.TypeString(m.Type(), qualifier))
					}
				}
			}
		case *types.Const:
			fmt.Printf("%s const %s %s = %s\n", rel(p), name, types.TypeString(o.Type(), qualifier), o.Val())
		default:
			fmt.Printf("%s %T %s %s\n", rel(p), obj, name, types.TypeString(obj.Type(), qualifier))
		}
	}
}

// exportedShape is t as a user sees it: a struct with its exported fields
// only.
func exportedShape(t types.Type, qualifier types.Qualifier) string {
	st, ok := t.(*types.Struct)
	if !ok {
		return types.TypeString(t, qualifier)
	}
	var fields []string
	for i := range st.NumFields() {
		if f := st.Field(i); f.Exported() {
			fields = append(fields, f.Name()+" "+types.TypeString(f.Type(), qualifier))
		}
	}
	return "struct{" + strings.Join(fields, "; ") + "}"
}
