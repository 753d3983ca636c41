// Package demo runs wavekit's demo: a local cluster (the control plane, its
// controllers and nodes that kwok simulates), the reference operator with a
// bundled chart, a Component applied wave by wave, an upgrade whose rolling
// update gates the next wave, deletion blocked by a foreign instance, then
// deletion completing wave by wave.
package demo
