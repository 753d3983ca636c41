package testenv

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteKubeconfig writes a kubeconfig file for cfg (server, CA, client
// certificate or token) with namespace default, for the programs and
// commands a test runs against the cluster (an operator binary, kubectl).
func WriteKubeconfig(cfg *rest.Config, path string) error {
	if err := clientcmd.WriteToFile(*Kubeconfig(cfg), path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// Kubeconfig returns a kubeconfig for cfg, its context named test.
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
