// Command component-operator is wavekit's reference operator: it installs
// any Helm chart, kustomization or template folder it is given as a
// Component, wave by wave, and deletes it again safely.
package main
