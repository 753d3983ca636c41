package releases

import (
	"bytes"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the inventory Secret", func() {
	It("round-trips a release and gzips a large inventory", func() {
		rel := &release{Name: "big", Namespace: "ns", Source: "/src", OperatorName: "wavekit.dev", Revision: 3, State: StateReady}
		for i := range 2000 {
			rel.Inventory = append(rel.Inventory, manifests.InventoryItem{
				Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: fmt.Sprintf("cm-%d", i),
				Digest: strings.Repeat("0", 64), Phase: manifests.PhaseReady,
			})
		}
		secret, err := encodeRelease(rel)
		Expect(err).NotTo(HaveOccurred())
		Expect(secret.Name).To(Equal("wavekit.big"))
		Expect(secret.Data).To(HaveKey("inventory.gz"))
		Expect(len(secret.Data["inventory.gz"])).To(BeNumerically("<", gzipThreshold))

		decoded, err := decodeRelease(secret)
		Expect(err).NotTo(HaveOccurred())
		Expect(decoded.Inventory).To(Equal(rel.Inventory))
		Expect(decoded.Revision).To(Equal(int64(3)))
		Expect(decoded.Source).To(Equal("/src"))
	})

	It("keeps a small inventory as plain JSON", func() {
		rel := &release{Name: "small", Namespace: "ns", Inventory: []manifests.InventoryItem{{Version: "v1", Kind: "ConfigMap", Name: "a"}}}
		secret, err := encodeRelease(rel)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(secret.Data["inventory"])).To(HavePrefix(`[{"version":"v1","kind":"ConfigMap"`))
	})
})

var _ = Describe("the terminal progress table", func() {
	It("redraws the table in place, cut to the terminal width", func() {
		var out bytes.Buffer
		p := &tableProgress{out: &out, width: 40}
		res := engine.Result{Wave: 0, Waiting: []engine.Waiting{{
			Object: manifests.ObjectKey{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web"}, Reason: "Creating, InProgress: Replicas: 0/1"}},
			Inventory: []manifests.InventoryItem{
				{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "web", Phase: manifests.PhaseCreating},
				{Kind: "ConfigMap", Namespace: "ns", Name: "after", ApplyOrder: 1, Phase: manifests.PhaseScheduled},
			}}
		p.update(res)
		Expect(out.String()).To(Equal("WAVE   READY   STATE\n" +
			"0      0/1     waiting for apps/Deploy…\n" +
			"1      0/1     pending\n"))

		out.Reset()
		res.Inventory[0].Phase, res.Inventory[1].Phase = manifests.PhaseReady, manifests.PhaseReady
		res.Done, res.Waiting = true, nil
		p.update(res)
		Expect(out.String()).To(Equal("\x1b[3A\x1b[J" +
			"WAVE   READY   STATE\n" +
			"0      1/1     ready\n" +
			"1      1/1     ready\n"))
	})
})
