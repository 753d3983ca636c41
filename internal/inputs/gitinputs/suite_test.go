package gitinputs_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
)

func TestGitInputs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "gitinputs")
}

var (
	ctx    = context.Background()
	server *gitserver.Server
	// private needs the user "reader" and its password.
	private *gitserver.Server
)

var _ = BeforeSuite(func() {
	var err error
	server, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(server.Close)
	private, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{Username: "reader", Password: "git-password-value"})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(private.Close)
})

// secrets is a reader of Secrets by namespace/name: the Secret reader is
// not what these specs test.
type secrets map[string]map[string][]byte

func (s secrets) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	data, ok := s[key.String()]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
	}
	secret := obj.(*corev1.Secret)
	secret.Namespace, secret.Name, secret.Data = key.Namespace, key.Name, data
	return nil
}

func (s secrets) List(context.Context, client.ObjectList, ...client.ListOption) error {
	Fail("the source lists no Secrets")
	return nil
}
