package scaffold

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:generate cp ../../go.mod deps/go.mod.txt
//go:generate cp ../../go.sum deps/go.sum.txt
//go:generate cp ../../hack/tools/go.mod deps/tools.mod.txt
//go:generate cp ../../hack/tools/go.sum deps/tools.sum.txt

// snapshot holds copies of wavekit's go.mod and go.sum and those of its tools
// module (hack/tools), taken by go generate, so that a scaffolded project
// requires the same versions wavekit was built and tested with.
//
//go:embed deps/*.txt
var snapshot embed.FS

// depFiles are wavekit's module files, by snapshot name.
type depFiles struct {
	mod, sum, toolsMod, toolsSum string
}

// depSources maps snapshot names to paths in a wavekit checkout.
var depSources = map[string]string{
	"go.mod.txt":    "go.mod",
	"go.sum.txt":    "go.sum",
	"tools.mod.txt": filepath.Join("hack", "tools", "go.mod"),
	"tools.sum.txt": filepath.Join("hack", "tools", "go.sum"),
}

// loadDeps reads wavekit's module files from the checkout at replace, or
// from the embedded snapshot when replace is empty. A replaced wavekit
// decides the versions the build selects, so its files are the ones to copy.
func loadDeps(replace string) (depFiles, error) {
	read := func(name string) (string, error) {
		if replace == "" {
			b, err := snapshot.ReadFile("deps/" + name)
			if err != nil {
				return "", fmt.Errorf("reading embedded %s: %w", name, err)
			}
			return string(b), nil
		}
		p := filepath.Join(replace, depSources[name])
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("reading %s of the wavekit checkout: %w", p, err)
		}
		return string(b), nil
	}
	var d depFiles
	for name, dst := range map[string]*string{"go.mod.txt": &d.mod, "go.sum.txt": &d.sum, "tools.mod.txt": &d.toolsMod, "tools.sum.txt": &d.toolsSum} {
		s, err := read(name)
		if err != nil {
			return depFiles{}, err
		}
		*dst = s
	}
	return d, nil
}

// requireLines returns the module requirements of a go.mod file as
// "path version" lines (with their // indirect comment), in file order.
func requireLines(gomod string) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(gomod, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "" && !strings.HasPrefix(line, "//"):
			out = append(out, line)
		case line == "require (":
			inBlock = true
		case strings.HasPrefix(line, "require "):
			out = append(out, strings.TrimSpace(strings.TrimPrefix(line, "require ")))
		}
	}
	return out
}

// toolsModule rewrites wavekit's tools go.mod for the project module.
func toolsModule(toolsMod, module string) string {
	lines := strings.Split(toolsMod, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "module ") {
			lines[i] = "module " + module + "/hack/tools"
		}
		if strings.HasPrefix(line, "//") && i < 3 {
			lines[i] = ""
		}
	}
	header := "// Module tools pins the command-line tools the Makefile runs (controller-gen,\n// staticcheck, kustomize), apart from the project's own module.\n"
	return header + strings.TrimLeft(strings.Join(lines, "\n"), "\n")
}
