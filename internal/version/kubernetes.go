package version

// Kubernetes is the Kubernetes version wavekit is built against (its
// k8s.io/client-go v0.37.1 is Kubernetes 1.37.1): what render assumes for
// Helm's .Capabilities when it renders without a cluster, and what the
// version command prints. A test of the CLI checks it against go.mod.
const Kubernetes = "1.37.1"
