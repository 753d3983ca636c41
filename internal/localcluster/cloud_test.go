package localcluster

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// These specs start no cluster: they check how create runs the simulated
// cloud; test/e2e's quick start runs it, test/localcloud checks what it does.
var _ = Describe("the simulated cloud of a cluster", func() {
	c := &Cluster{Name: "cloud", Dir: "/state/cloud"}

	DescribeTable("runs `wavekit cluster cloud` with the administrator's kubeconfig and the parts turned off",
		func(cloud *Cloud, args []string, summary string) {
			s := &State{Cloud: cloud}
			Expect(cloud.runs()).To(BeTrue())
			Expect(c.cloudArgs(s)).To(Equal(append([]string{"cluster", "cloud", "--kubeconfig", "/state/cloud/" + adminKubeconfigFile}, args...)))
			Expect(cloud.Summary()).To(Equal(summary))
		},
		Entry("both", &Cloud{}, nil,
			"the default StorageClass standard and its provisioner, load balancer addresses from 127.0.0.2-127.0.255.254"),
		Entry("no storage", &Cloud{NoStorage: true}, []string{"--storage=false"},
			"load balancer addresses from 127.0.0.2-127.0.255.254"),
		Entry("no load balancers", &Cloud{NoLoadBalancers: true}, []string{"--load-balancers=false"},
			"the default StorageClass standard and its provisioner"),
	)

	It("runs no process when both parts are off, or for a cluster recorded without one", func() {
		Expect((&Cloud{NoStorage: true, NoLoadBalancers: true}).runs()).To(BeFalse())
		Expect((*Cloud)(nil).runs()).To(BeFalse())
	})
})
