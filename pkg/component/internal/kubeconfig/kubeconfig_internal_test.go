package kubeconfig

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func kubeconfigBytes(t *testing.T, cluster *clientcmdapi.Cluster, user *clientcmdapi.AuthInfo) []byte {
	t.Helper()
	config := clientcmdapi.NewConfig()
	config.Clusters["c"], config.AuthInfos["u"] = cluster, user
	config.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	config.CurrentContext = "x"
	data, err := clientcmd.Write(*config)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFromSecretRefusesCodeAndFiles(t *testing.T) {
	server := func() *clientcmdapi.Cluster { return &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"} }
	exec := &clientcmdapi.ExecConfig{Command: "/bin/true", APIVersion: "client.authentication.k8s.io/v1"}
	cases := []struct {
		name    string
		cluster *clientcmdapi.Cluster
		user    *clientcmdapi.AuthInfo
		want    string
	}{
		{"exec", server(), &clientcmdapi.AuthInfo{Exec: exec}, `user "u" uses exec`},
		{"auth-provider", server(), &clientcmdapi.AuthInfo{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: "oidc"}}, `user "u" uses auth-provider`},
		{"tokenFile", server(), &clientcmdapi.AuthInfo{TokenFile: "/var/run/secrets/token"}, `user "u" sets tokenFile`},
		{"client-certificate", server(), &clientcmdapi.AuthInfo{ClientCertificate: "/c"}, `user "u" sets client-certificate`},
		{"client-key", server(), &clientcmdapi.AuthInfo{ClientKey: "/k"}, `user "u" sets client-key`},
		{"certificate-authority", &clientcmdapi.Cluster{Server: "https://x", CertificateAuthority: "/ca"}, &clientcmdapi.AuthInfo{Token: "t"}, `cluster "c" sets certificate-authority`},
		{"no server", &clientcmdapi.Cluster{}, &clientcmdapi.AuthInfo{Token: "t"}, `cluster "c" has no server`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromSecret(kubeconfigBytes(t, tc.cluster, tc.user), "Secret ns/kc", false)
			if err == nil || !strings.Contains(err.Error(), "kubeconfig in Secret ns/kc: "+tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFromSecretAllowsInlineDataAndOptInExec(t *testing.T) {
	inline := kubeconfigBytes(t, &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", CertificateAuthorityData: []byte("ca")},
		&clientcmdapi.AuthInfo{Token: "t"})
	cfg, err := FromSecret(inline, "Secret ns/kc", false)
	if err != nil || cfg.BearerToken != "t" || string(cfg.CAData) != "ca" {
		t.Fatalf("inline kubeconfig: %v %+v", err, cfg)
	}
	withExec := kubeconfigBytes(t, &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"},
		&clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "/bin/true", APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}})
	if _, err := FromSecret(withExec, "Secret ns/kc", true); err != nil {
		t.Fatalf("exec with InsecureKubeConfigExec: %v", err)
	}
}
