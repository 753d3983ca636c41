package testcluster_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

var _ = Describe("restarting the API server", func() {
	ctx := context.Background()

	It("keeps the data, address, certificates and egress gate, and Stop stops the new process", func() {
		env, err := testcluster.Start(testcluster.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default"}}
		Expect(env.Client.Create(ctx, cm)).To(Succeed())

		for i := range 2 { // the second time restarts the process the first one started
			var downErr error
			start := time.Now()
			var down time.Time
			Expect(env.RestartAPIServer(ctx, func() {
				down = time.Now()
				downErr = env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})
			})).To(Succeed(), "restart %d", i)
			GinkgoWriter.Printf("restart %d: stopped in %s, ready in %s\n", i, down.Sub(start), time.Since(down))
			Expect(downErr).To(MatchError(ContainSubstring("connection refused")), "restart %d: the server was not away", i)

			var got corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &got)).To(Succeed(), "restart %d", i)
			Expect(got.UID).To(Equal(cm.UID), "restart %d", i)

			pid, err := env.APIServerPID()
			Expect(err).NotTo(HaveOccurred())
			cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.Split(string(cmdline), "\x00")).To(ContainElement(HavePrefix("--egress-selector-config-file=")),
				"restart %d: the new kube-apiserver connects to the cluster's addresses past the egress gate", i)
			Expect(env.EgressSocket()).To(BeAnExistingFile(), "restart %d", i)
		}
	})
})
