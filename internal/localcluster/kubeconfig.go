package localcluster

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// adminKubeconfigFile is the cluster administrator's kubeconfig in the
// cluster's directory, which the controllers, the scheduler and kwok use.
const adminKubeconfigFile = "admin.kubeconfig"

// Kubeconfig returns a kubeconfig of the cluster administrator with one
// context, the cluster's ContextName, and the certificates inline.
func (c *Cluster) Kubeconfig(s *State) (*clientcmdapi.Config, error) {
	read := func(name string) ([]byte, error) { return os.ReadFile(c.path("pki", name)) }
	ca, err := read(caCertFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA of cluster %s: %w", c.Name, err)
	}
	cert, err := read(adminCertFile)
	if err != nil {
		return nil, fmt.Errorf("reading the client certificate of cluster %s: %w", c.Name, err)
	}
	key, err := read(adminKeyFile)
	if err != nil {
		return nil, fmt.Errorf("reading the client key of cluster %s: %w", c.Name, err)
	}
	name := c.ContextName()
	config := clientcmdapi.NewConfig()
	config.Clusters[name] = &clientcmdapi.Cluster{Server: c.Server(s), CertificateAuthorityData: ca}
	config.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	config.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	config.CurrentContext = name
	return config, nil
}

// Server is the URL of the cluster's API server.
func (c *Cluster) Server(s *State) string {
	return fmt.Sprintf("https://127.0.0.1:%d", s.APIServerPort)
}

// writeAdminKubeconfig writes the kubeconfig the cluster's parts read.
func writeAdminKubeconfig(c *Cluster, s *State) error {
	config, err := c.Kubeconfig(s)
	if err != nil {
		return err
	}
	if err := clientcmd.WriteToFile(*config, c.path(adminKubeconfigFile)); err != nil {
		return fmt.Errorf("writing the kubeconfig of cluster %s: %w", c.Name, err)
	}
	return nil
}

// adminConfig is a client configuration of the cluster administrator.
func (c *Cluster) adminConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.path(adminKubeconfigFile))
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig of cluster %s: %w", c.Name, err)
	}
	return cfg, nil
}

// withCodec is cfg ready for an unversioned REST client.
func withCodec(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = &schema.GroupVersion{}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	return cfg
}

// pathOptions reads and writes the kubeconfig file as kubectl does: file
// when given, else $KUBECONFIG's files, else ~/.kube/config.
func pathOptions(file string) *clientcmd.PathOptions {
	po := clientcmd.NewDefaultPathOptions()
	po.LoadingRules.ExplicitPath = file
	return po
}

// MergeKubeconfig adds the cluster's context, cluster and user to the
// kubeconfig (see pathOptions), replacing ones of the same name, and makes
// the context current when use is true. It returns the file written.
func (c *Cluster) MergeKubeconfig(s *State, file string, use bool) (string, error) {
	own, err := c.Kubeconfig(s)
	if err != nil {
		return "", err
	}
	po := pathOptions(file)
	config, err := po.GetStartingConfig()
	if err != nil {
		return "", fmt.Errorf("reading the kubeconfig: %w", err)
	}
	name := c.ContextName()
	config.Clusters[name] = own.Clusters[name]
	config.AuthInfos[name] = own.AuthInfos[name]
	config.Contexts[name] = own.Contexts[name]
	if use || config.CurrentContext == "" {
		config.CurrentContext = name
	}
	if err := clientcmd.ModifyConfig(po, *config, false); err != nil {
		return "", fmt.Errorf("writing the kubeconfig %s: %w", po.GetDefaultFilename(), err)
	}
	return po.GetDefaultFilename(), nil
}

// RemoveFromKubeconfig removes the cluster's context, cluster and user from
// the kubeconfig, and the current context if it was the cluster's. It
// returns the file written, or "" when the kubeconfig had none of them.
func (c *Cluster) RemoveFromKubeconfig(file string) (string, error) {
	po := pathOptions(file)
	config, err := po.GetStartingConfig()
	if err != nil {
		return "", fmt.Errorf("reading the kubeconfig: %w", err)
	}
	name := c.ContextName()
	_, had := config.Contexts[name]
	delete(config.Clusters, name)
	delete(config.AuthInfos, name)
	delete(config.Contexts, name)
	if config.CurrentContext == name {
		config.CurrentContext = ""
		had = true
	}
	if !had {
		return "", nil
	}
	if err := clientcmd.ModifyConfig(po, *config, false); err != nil {
		return "", fmt.Errorf("writing the kubeconfig %s: %w", po.GetDefaultFilename(), err)
	}
	return po.GetDefaultFilename(), nil
}
