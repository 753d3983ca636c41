// Package demo runs wavekit's demo: a local control plane, the reference
// operator with a bundled chart, a Component applied wave by wave, deletion
// blocked by a foreign instance, then deletion completing wave by wave.
package demo
