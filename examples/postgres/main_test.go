package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// TestWebApp runs the example operator on a local cluster (pkg/testenv)
// against a real PostgreSQL server (internal/testing/pgserver): the role and the
// database exist before the Deployment, the Deployment's Secret logs in,
// a database dropped by hand comes back, and deletion removes all three.
func TestWebApp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pg, err := pgserver.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	c := startOperator(ctx, t)

	admin := pg.AdminCredentials()
	must(t, c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "postgres-admin"}, Data: admin}))
	app := &WebApp{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "shop"},
		Spec:       WebAppSpec{AdminSecretRef: "postgres-admin", DatabaseHost: "127.0.0.1", DatabasePort: pg.Port()},
	}
	must(t, c.Create(ctx, app))

	// When the Deployment first exists, the role and database already do.
	eventually(t, ctx, "the Deployment shop", func() bool {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "shop"}, &appsv1.Deployment{}) == nil
	})
	adminURL := pg.ConnString(string(admin["user"]), string(admin["password"]), "postgres")
	if n := count(ctx, t, adminURL, "SELECT count(*) FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE d.datname = 'shop' AND r.rolname = 'shop'"); n != 1 {
		t.Fatalf("the Deployment exists, the database shop owned by shop does not (%d)", n)
	}

	// The Deployment's Secret logs in to its database.
	var secret corev1.Secret
	must(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "shop-db"}, &secret))
	d := secret.Data
	if string(d["port"]) != strconv.Itoa(pg.Port()) || string(d["host"]) != "127.0.0.1" {
		t.Fatalf("the Secret says %s:%s, want 127.0.0.1:%d", d["host"], d["port"], pg.Port())
	}
	appURL := pg.ConnString(string(d["username"]), string(d["password"]), string(d["dbname"]))
	if n := count(ctx, t, appURL, "SELECT count(*) FROM pg_database WHERE datname = current_database() AND current_user = 'shop'"); n != 1 {
		t.Fatal("logged in with the Secret, but not as shop to shop")
	}
	eventually(t, ctx, "the WebApp Ready", func() bool {
		return c.Get(ctx, client.ObjectKeyFromObject(app), app) == nil &&
			meta.IsStatusConditionTrue(app.Status.Conditions, "Ready")
	})

	// A database dropped by hand is found by the poll and made again.
	exec(ctx, t, adminURL, "DROP DATABASE shop WITH (FORCE)")
	eventually(t, ctx, "the database shop made again", func() bool {
		return count(ctx, t, adminURL, "SELECT count(*) FROM pg_database WHERE datname = 'shop'") == 1
	})

	early := watchDropBeforeDeployment(ctx, c, adminURL)
	must(t, c.Delete(ctx, app))
	eventually(t, ctx, "the WebApp gone", func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(app), app))
	})
	if <-early {
		t.Fatal("the database shop was dropped while the Deployment shop still existed")
	}
	if n := count(ctx, t, adminURL, "SELECT (SELECT count(*) FROM pg_database WHERE datname = 'shop') + (SELECT count(*) FROM pg_roles WHERE rolname = 'shop')"); n != 0 {
		t.Fatalf("%d of the database and role shop left after the WebApp was deleted", n)
	}
}

// startOperator starts a local cluster with the WebApp CRD and the
// example's reconciler, polling every second; it returns a client.
func startOperator(ctx context.Context, t *testing.T) client.Client {
	logs := &lockedBuffer{}
	ctrl.SetLogger(zap.New(zap.WriteTo(logs)))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("the operator's log:\n" + logs.String())
		}
	})
	env := &testenv.Environment{Nodes: 1, Environment: envtest.Environment{
		CRDDirectoryPaths: []string{filepath.Join(".", "crd.yaml")}, ErrorIfCRDPathMissing: true,
	}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	scheme := runtime.NewScheme()
	must(t, clientgoscheme.AddToScheme(scheme))
	addToScheme(scheme)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	must(t, err)
	must(t, setup(mgr, external.Options{PollInterval: time.Second}))
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(mgrCtx) }()
	t.Cleanup(func() { stop(); <-done })
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	must(t, err)
	return c
}

// watchDropBeforeDeployment watches, until the Deployment shop is gone,
// whether the database shop is ever gone while the Deployment exists. It
// looks at the database first and at the Deployment after: a Deployment
// that exists after the database was seen gone existed when it went.
func watchDropBeforeDeployment(ctx context.Context, c client.Client, adminURL string) <-chan bool {
	early := make(chan bool, 1)
	go func() {
		for ctx.Err() == nil {
			n, qerr := countOnce(ctx, adminURL, "SELECT count(*) FROM pg_database WHERE datname = 'shop'")
			err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "shop"}, &appsv1.Deployment{})
			if apierrors.IsNotFound(err) {
				early <- false
				return
			}
			if err == nil && qerr == nil && n == 0 {
				early <- true
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		early <- false
	}()
	return early
}

func eventually(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func count(ctx context.Context, t *testing.T, url, sql string) int {
	t.Helper()
	n, err := countOnce(ctx, url, sql)
	must(t, err)
	return n
}

func countOnce(ctx context.Context, url, sql string) (int, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, sql).Scan(&n)
	return n, err
}

func exec(ctx context.Context, t *testing.T, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	must(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	must(t, err)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer is a buffer the operator's goroutines write their log to,
// also after the test ended.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
