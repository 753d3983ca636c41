// Package git_test runs the reference operator, as its own process under
// the chart's RBAC, against Git repositories served on this machine by
// git's own git-http-backend (smart HTTP, one server anonymous, one behind
// basic authentication) and git-upload-pack behind an SSH server with a
// host key: Components follow branches, tags and semver ranges, verify
// signatures, share their looks at a repository, and refuse what they
// must, on a bare API server (the Components apply ConfigMaps).
package git_test

import (
	"context"
	"io"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

const (
	operatorName = "git.wavekit.dev"
	systemNS     = "wavekit-system"
	operatorSA   = "wavekit-component-operator"
	teamA, teamB = "team-a", "team-b"
	timeout      = 2 * time.Minute
	// password is the private server's; no log line, Event or status may
	// hold it.
	password = "pa55-never-printed"
)

var (
	ctx      = context.Background()
	env      *testcluster.Env
	server   *gitserver.Server // anonymous HTTP, and SSH
	private  *gitserver.Server // HTTP behind basic authentication
	operator *gexec.Session
	logs     *gbytes.Buffer
	base     string // the receiver's URL
)

func TestGit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "git")
}

var _ = BeforeSuite(func() {
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	env, err = testcluster.Start(testcluster.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	for _, ns := range []string{systemNS, teamA, teamB} {
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	server, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(server.Close)
	private, err = gitserver.Start(GinkgoT().TempDir(), gitserver.Options{Username: "bot", Password: password})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(private.Close)

	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	Expect(operatortest.ApplyRBAC(ctx, env.Client, testcluster.ModuleRoot(), "wavekit", systemNS, map[string]any{
		"receiver": map[string]any{"enabled": true},
		"rbac":     map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": verbs}}},
	})).To(Succeed())
	addr, err := operatortest.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	base = "http://" + addr
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	cfg, err := operatortest.ServiceAccountConfig(ctx, env.Client, env.Config, systemNS, operatorSA)
	Expect(err).NotTo(HaveOccurred())
	logs = gbytes.NewBuffer()
	operator, err = operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: io.MultiWriter(GinkgoWriter, logs),
		Args: []string{"--operator-name", operatorName, "--receiver-bind-address", addr, "--git-max-size", "2097152",
			"--source-cache-dir", GinkgoT().TempDir(), "--concurrent", "8", "--chart-max-size", "262144"}}.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { operator.Terminate().Wait(10 * time.Second) })
})
