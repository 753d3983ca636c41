package testenv

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteKubeconfig writes a kubeconfig file for cfg (server, CA, client
// certificate or token) with namespace default, for programs and commands
// that tests run against the control plane.
func WriteKubeconfig(cfg *rest.Config, path string) error {
	return clientcmd.WriteToFile(*Kubeconfig(cfg), path)
}

// Kubeconfig returns a kubeconfig for cfg.
func Kubeconfig(cfg *rest.Config) *clientcmdapi.Config {
	config := clientcmdapi.NewConfig()
	config.Clusters["test"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	config.AuthInfos["test"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
	}
	config.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test", Namespace: "default"}
	config.CurrentContext = "test"
	return config
}

// KubeconfigBytes returns cfg as kubeconfig YAML (for a kubeconfig Secret).
func KubeconfigBytes(cfg *rest.Config) ([]byte, error) {
	data, err := clientcmd.Write(*Kubeconfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("encoding kubeconfig: %w", err)
	}
	return data, nil
}
