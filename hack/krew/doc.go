// Command krew packages the CLI binaries of make cli for krew: archives
// holding kubectl-wavekit and the Plugin manifest (make krew).
package main
