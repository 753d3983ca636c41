package scaffold

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/module"
)

// checkModulePath accepts exactly the module paths `go mod init PATH`
// accepts, and rejects the others with go's words: it is an import path
// (module.CheckImportPath), not a path go reserves for itself ("go",
// "toolchain"), and any major version suffix is a valid one (/v2 or later,
// .vN for gopkg.in) — the checks of cmd/go's modload.CreateModFile.
func checkModulePath(path string) error {
	if err := module.CheckImportPath(path); err != nil {
		var pathErr *module.InvalidPathError
		if errors.As(err, &pathErr) {
			pathErr.Kind = "module"
			if isLocalPath(pathErr.Path) {
				pathErr.Err = errors.New("is a local import path")
			}
		}
		return err
	}
	if path == "go" || path == "toolchain" {
		return fmt.Errorf("invalid module path %q: module path is reserved", path)
	}
	if _, _, ok := module.SplitPathVersion(path); !ok {
		if strings.HasPrefix(path, "gopkg.in/") {
			return fmt.Errorf("invalid module path %q: module paths beginning with gopkg.in/ must always have a major version suffix in the form of .vN (e.g. %s)",
				path, suggestGopkgIn(path))
		}
		return fmt.Errorf("invalid module path %q: major version suffixes must be in the form of /vN and are only allowed for v2 or later (e.g. %s)",
			path, suggestMajorVersion(path))
	}
	return nil
}

// isLocalPath tells whether path is a relative file path such as ./x.
func isLocalPath(path string) bool {
	return path == "." || path == ".." || strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../")
}

// suggestMajorVersion turns a path with a bad major version suffix (/v1,
// /v0, /v2.1) into one with a good one, as go mod init suggests.
func suggestMajorVersion(path string) string {
	base, digits := splitTrailingVersion(path)
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/v"), "/")
	if major := firstNumber(digits); major != "" && major != "1" {
		return base + "/v" + major
	}
	return base + "/v2"
}

// suggestGopkgIn gives a gopkg.in path the .vN suffix it lacks.
func suggestGopkgIn(path string) string {
	base, _ := splitTrailingVersion(path)
	base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".v"), "/v"), "/")
	if major := firstNumber(path); major != "" {
		return base + ".v" + major
	}
	return base + ".v1"
}

// splitTrailingVersion splits off the trailing run of digits and dots.
func splitTrailingVersion(path string) (base, digits string) {
	i := len(path)
	for i > 0 && (path[i-1] >= '0' && path[i-1] <= '9' || path[i-1] == '.') {
		i--
	}
	return path[:i], path[i:]
}

// firstNumber returns the first run of digits in s without leading zeros.
func firstNumber(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(fields) == 0 {
		return ""
	}
	return strings.TrimLeft(fields[0], "0")
}
