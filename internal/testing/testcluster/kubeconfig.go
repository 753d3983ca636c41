package testcluster

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// WriteKubeconfig writes a kubeconfig file for cfg (server, CA, client
// certificate or token) with namespace default, for programs and commands
// that tests run against the control plane.
func WriteKubeconfig(cfg *rest.Config, path string) error {
	return testenv.WriteKubeconfig(cfg, path)
}

// Kubeconfig returns a kubeconfig for cfg.
func Kubeconfig(cfg *rest.Config) *clientcmdapi.Config {
	return testenv.Kubeconfig(cfg)
}

// KubeconfigBytes returns cfg as kubeconfig YAML (for a kubeconfig Secret).
func KubeconfigBytes(cfg *rest.Config) ([]byte, error) {
	data, err := clientcmd.Write(*Kubeconfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("encoding kubeconfig: %w", err)
	}
	return data, nil
}
