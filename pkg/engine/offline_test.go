package engine_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

var _ = Describe("the offline REST mapper", func() {
	It("knows every built-in kind the API server serves, with the server's scope", func() {
		offline, err := engine.OfflineRESTMapper()
		Expect(err).NotTo(HaveOccurred())
		dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())
		_, lists, err := dc.ServerGroupsAndResources()
		Expect(err).NotTo(HaveOccurred())
		var unknown, wrong []string
		checked := 0
		for _, list := range lists {
			gv, err := schema.ParseGroupVersion(list.GroupVersion)
			Expect(err).NotTo(HaveOccurred())
			if gv.Group != "" && !strings.HasSuffix(gv.Group, "k8s.io") {
				continue // a CRD of the tests
			}
			for _, r := range list.APIResources {
				if strings.Contains(r.Name, "/") {
					continue // a subresource
				}
				gvk := gv.WithKind(r.Kind)
				mapping, err := offline.RESTMapping(gvk.GroupKind(), gvk.Version)
				if err != nil {
					unknown = append(unknown, gvk.String())
					continue
				}
				checked++
				if (mapping.Scope.Name() == meta.RESTScopeNameNamespace) != r.Namespaced {
					wrong = append(wrong, gvk.String())
				}
			}
		}
		Expect(unknown).To(BeEmpty(), "served, unknown offline")
		Expect(wrong).To(BeEmpty(), "another scope offline than served")
		Expect(checked).To(BeNumerically(">", 50))
	})
})
