package egress

import (
	"fmt"
	"os"

	apiserverv1beta1 "k8s.io/apiserver/pkg/apis/apiserver/v1beta1"
	"sigs.k8s.io/yaml"
)

// Flag is kube-apiserver's flag that names the file WriteConfig writes.
const Flag = "egress-selector-config-file"

// File names in the directory of a gate: its socket and kube-apiserver's
// configuration.
const (
	SocketFile = "egress.sock"
	ConfigFile = "egress-selector.yaml"
)

// WriteConfig writes kube-apiserver's EgressSelectorConfiguration to path:
// the cluster selection (Services, APIServices, kubelets) and the
// controlplane selection (webhooks given by URL) go as HTTP CONNECT over the
// Unix socket socket, etcd goes Direct.
func WriteConfig(path, socket string) error {
	viaGate := apiserverv1beta1.Connection{
		ProxyProtocol: apiserverv1beta1.ProtocolHTTPConnect,
		Transport:     &apiserverv1beta1.Transport{UDS: &apiserverv1beta1.UDSTransport{UDSName: socket}},
	}
	config := apiserverv1beta1.EgressSelectorConfiguration{
		EgressSelections: []apiserverv1beta1.EgressSelection{
			{Name: "cluster", Connection: viaGate},
			{Name: "controlplane", Connection: viaGate},
			{Name: "etcd", Connection: apiserverv1beta1.Connection{ProxyProtocol: apiserverv1beta1.ProtocolDirect}},
		},
	}
	config.APIVersion = apiserverv1beta1.SchemeGroupVersion.String()
	config.Kind = "EgressSelectorConfiguration"
	data, err := yaml.Marshal(config)
	if err != nil {
		return fmt.Errorf("encoding kube-apiserver's egress selector configuration: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing kube-apiserver's egress selector configuration: %w", err)
	}
	return nil
}
