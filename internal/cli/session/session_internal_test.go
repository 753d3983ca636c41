package session

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
)

var _ = Describe("the client settings", func() {
	tuned := func(args ...string) *rest.Config {
		s := &Session{Stderr: &bytes.Buffer{}}
		cmd := &cobra.Command{}
		s.AddFlags(cmd)
		Expect(cmd.PersistentFlags().Parse(args)).To(Succeed())
		cfg := &rest.Config{}
		s.Tune(cfg)
		return cfg
	}

	It("does not throttle a few thousand objects by default, and takes --qps and --burst", func() {
		cfg := tuned()
		Expect(cfg.QPS).To(BeEquivalentTo(defaultQPS))
		Expect(cfg.Burst).To(Equal(defaultBurst))
		Expect(cfg.UserAgent).To(Equal("wavekit"))

		cfg = tuned("--qps", "20", "--burst", "40")
		Expect(cfg.QPS).To(BeEquivalentTo(20))
		Expect(cfg.Burst).To(Equal(40))

		Expect(tuned("--qps", "0").QPS).To(BeNumerically("<", 0), "no client-side limit")
	})
})
