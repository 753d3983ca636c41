package managedfields

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("fields taken over", func() {
	pointer := func(text string) manifests.Pointer {
		p, err := manifests.ParsePointer(text)
		Expect(err).NotTo(HaveOccurred())
		return p
	}

	It("keeps ignored fields out of what ssa-override takes over", func() {
		set, err := decodeFieldSet(metav1.NewFieldsV1(`{"f:spec":{"f:replicas":{},"f:paused":{}},"f:metadata":{"f:annotations":{"f:x":{}}}}`))
		Expect(err).NotTo(HaveOccurred())
		kept := withoutIgnored(set, []manifests.Pointer{pointer("/spec/replicas"), pointer("/metadata/annotations")})
		data, err := kept.ToJSON()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(Equal(`{"f:spec":{"f:paused":{}}}`))
	})
})
