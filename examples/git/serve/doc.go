// Command serve serves the bare Git repositories of a directory over smart
// HTTP on this machine, with git's own git-http-backend, so that
// Components and `wavekit render` can read a repository with no network:
//
//	go run ./examples/git/serve --root /tmp/wavekit-git --addr 127.0.0.1:8765
//
// http://127.0.0.1:8765/web.git is then the repository /tmp/wavekit-git/web.git.
// It serves fetches only (git-http-backend refuses pushes without
// authentication); push to the directory itself.
package main
