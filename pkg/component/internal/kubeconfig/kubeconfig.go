package kubeconfig

import (
	"fmt"
	"sort"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// FromSecret turns the kubeconfig data of a Secret into a rest
// config, refusing what would make the operator run code or read its own
// files: exec and auth-provider users (unless allowExec), and any reference
// to a file (tokenFile, client-certificate, client-key,
// certificate-authority). source names the Secret and key in errors. It
// validates the parsed kubeconfig before anything is built from it, so a
// refused kubeconfig executes, reads and sends nothing.
func FromSecret(data []byte, source string, allowExec bool) (*rest.Config, error) {
	config, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig in %s: %w", source, err)
	}
	if err := checkSelfContained(config, allowExec); err != nil {
		return nil, fmt.Errorf("kubeconfig in %s: %w", source, err)
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*config, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig in %s: %w", source, err)
	}
	return cfg, nil
}

// checkSelfContained checks every user and cluster entry of config, used or
// not: a kubeconfig from a Secret carries its credentials inline.
func checkSelfContained(config *clientcmdapi.Config, allowExec bool) error {
	for _, name := range sortedNames(config.AuthInfos) {
		if err := checkUser(name, config.AuthInfos[name], allowExec); err != nil {
			return err
		}
	}
	for _, name := range sortedNames(config.Clusters) {
		if err := checkCluster(name, config.Clusters[name]); err != nil {
			return err
		}
	}
	return nil
}

func checkUser(name string, user *clientcmdapi.AuthInfo, allowExec bool) error {
	const insecure = "refused unless the operator allows it (ReconcilerOptions.InsecureKubeConfigExec, --insecure-kubeconfig-exec)"
	switch {
	case user == nil:
		return nil
	case user.Exec != nil && !allowExec:
		return fmt.Errorf("user %q uses exec, which runs a command in the operator: %s", name, insecure)
	case user.AuthProvider != nil && !allowExec:
		return fmt.Errorf("user %q uses auth-provider, which runs code in the operator: %s", name, insecure)
	}
	files := map[string]string{"tokenFile": user.TokenFile, "client-certificate": user.ClientCertificate, "client-key": user.ClientKey}
	return refuseFiles("user", name, files)
}

func checkCluster(name string, cluster *clientcmdapi.Cluster) error {
	if cluster == nil {
		return nil
	}
	if cluster.Server == "" {
		return fmt.Errorf("cluster %q has no server", name)
	}
	return refuseFiles("cluster", name, map[string]string{"certificate-authority": cluster.CertificateAuthority})
}

// refuseFiles refuses the first set field of files (field → path), in name order.
func refuseFiles(entry, name string, files map[string]string) error {
	for _, field := range sortedNames(files) {
		if files[field] != "" {
			return fmt.Errorf("%s %q sets %s, a path on the operator's file system: only inline data is allowed", entry, name, field)
		}
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
