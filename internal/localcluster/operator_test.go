package localcluster

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// These specs start no cluster: they check how create's --definitions and
// --definition-groups reach the operator's process, and what a cluster
// recorded before them does.
var _ = Describe("the definitions a cluster's operator serves", func() {
	c := &Cluster{Name: "test", Dir: "/state/test"}
	base := []string{"cluster", "operator", "--kubeconfig", "/state/test/operator.kubeconfig"}

	It("serves them by default, in the groups given, and not with --definitions=false", func() {
		Expect(c.operatorArgs(&State{Operator: &Operator{}})).To(Equal(append(base, "--definitions=true")))
		Expect(c.operatorArgs(&State{Operator: &Operator{DefinitionGroups: []string{"platform.example.com", "*.example.org"}}})).To(
			Equal(append(base, "--definitions=true", "--definition-groups", "platform.example.com,*.example.org")))
		Expect(c.operatorArgs(&State{Operator: &Operator{NoDefinitions: true}})).To(Equal(append(base, "--definitions=false")))
	})

	It("serves them for a cluster recorded before the choice existed", func() {
		var s State
		Expect(json.Unmarshal([]byte(`{"operator":{"executable":"/bin/wavekit","sources":["web=/web"]}}`), &s)).To(Succeed())
		Expect(c.operatorArgs(&s)).To(ContainElement("--definitions=true"))
		Expect(s.Operator.DefinitionsSummary()).To(Equal("served, kinds in any group but Kubernetes' and the operator's"))
	})
})
