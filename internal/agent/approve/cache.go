package approve

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/agent/register"
)

// CacheFor adds to base what the approver caches of
// CertificateSigningRequests: those of the agents' signer
// (register.SignerName), selected by the API server's field
// spec.signerName, not every request of the hub — its kubelets' client and
// serving certificates, renewed all the time, and other signers'. A
// request of another signer is not the approver's to decide: it never
// sees one.
func CacheFor(base cache.Options) cache.Options {
	byObject := make(map[client.Object]cache.ByObject, len(base.ByObject)+1)
	for o, b := range base.ByObject {
		byObject[o] = b
	}
	byObject[&certificatesv1.CertificateSigningRequest{}] = cache.ByObject{
		Field: fields.OneTermEqualSelector("spec.signerName", register.SignerName)}
	base.ByObject = byObject
	return base
}
