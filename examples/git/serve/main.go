package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	root := flag.String("root", "", "the directory of the bare repositories (NAME.git)")
	addr := flag.String("addr", "127.0.0.1:8765", "the address to serve on")
	flag.Parse()
	if *root == "" {
		log.Fatal("--root is needed: the directory of the bare repositories")
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		log.Fatal(err)
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		log.Fatalf("the git program is needed: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		log.Fatalf("git-http-backend is needed (Debian's git package has it): %v", err)
	}
	handler := &cgi.Handler{Path: backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + abs, "GIT_HTTP_EXPORT_ALL=1"}}
	fmt.Printf("serving the repositories of %s on http://%s/NAME.git\n", abs, *addr)
	log.Fatal(http.ListenAndServe(*addr, handler))
}
