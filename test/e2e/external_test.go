package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The reference operator, as its own process with the chart's RBAC, keeps a
// role and a database in a real PostgreSQL server beside a Deployment that
// reads the role's generated password (testdata/shop): wave 0 outside the
// cluster, wave 1 inside it.
var _ = Describe("external dependents in a real PostgreSQL server", Ordered, func() {
	var (
		env      *testcluster.Env
		binary   string
		pg       *pgserver.Server
		operator *gexec.Session
		cfg      *rest.Config
		ctx      = context.Background()
	)
	const ns = "shop"

	BeforeAll(func() {
		env = startControlPlaneWith(testcluster.Options{Controllers: true})
		binary = buildOperatorBinary()
		var err error
		pg, err = pgserver.Start(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(pg.Close)
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "postgres-admin"},
			Data: pg.AdminCredentials()})).To(Succeed())
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{"extraRules": shopSourceRules()}})
		cfg = serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator")
		operator = startShopOperator(binary, cfg, nil)
	})
	AfterAll(func() { operator.Terminate().Wait(10 * time.Second) })

	query := func(sql string, args ...any) (string, error) {
		conn, err := pgx.Connect(ctx, pg.ConnString(pgserver.AdminUser, string(pg.AdminCredentials()["password"]), "postgres"))
		if err != nil {
			return "", err
		}
		defer conn.Close(ctx)
		var out string
		err = conn.QueryRow(ctx, sql, args...).Scan(&out)
		return out, err
	}
	databaseOID := func(name string) string {
		oid, err := query("SELECT coalesce((SELECT oid::text FROM pg_database WHERE datname = $1), '')", name)
		if err != nil {
			return "error: " + err.Error()
		}
		return oid
	}
	externalID := func(key client.ObjectKey, kind string) string {
		var c v1alpha1.Component
		if err := env.Client.Get(ctx, key, &c); err != nil {
			return "error: " + err.Error()
		}
		for _, item := range c.Status.Externals {
			if item.Kind == kind {
				return item.ID
			}
		}
		return ""
	}

	It("holds the Deployment until the database server answers, and then creates the role and database before it", func() {
		Expect(pg.Stop()).To(Succeed())
		c := shopComponent(ns, "shop", "shop", pg.Port(), nil)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		key := client.ObjectKeyFromObject(c)

		Eventually(func() string { return readyMessage(ctx, env, c) }).WithTimeout(60*time.Second).
			Should(ContainSubstring("external PostgresRole app"), "the error names the dependent")
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-settings"}, &cm)).To(Succeed(), "wave -1 is not held back")
		Consistently(func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, &appsv1.Deployment{}))
		}).WithTimeout(3*time.Second).Should(BeTrue(), "no Deployment while its database cannot be made")

		Expect(pg.Start(ctx)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(90 * time.Second).Should(Equal("True/Ready"))
		oid := databaseOID("shop")
		Expect(oid).To(MatchRegexp(`^\d+$`))
		Expect(externalID(key, "PostgresDatabase")).To(Equal(oid), "the inventory holds the database's OID")
		Expect(externalID(key, "PostgresRole")).To(MatchRegexp(`^\d+$`))

		By("the Deployment's Secret logs in to its database")
		var secret corev1.Secret
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-db"}, &secret)).To(Succeed())
		conn, err := pgx.Connect(ctx, pg.ConnString(string(secret.Data["username"]), string(secret.Data["password"]), string(secret.Data["dbname"])))
		Expect(err).NotTo(HaveOccurred())
		Expect(conn.Close(ctx)).To(Succeed())
		var deploy appsv1.Deployment
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, &deploy)).To(Succeed())

		By("the password appears nowhere but in its Secret")
		password := string(secret.Data["password"])
		Expect(password).To(HaveLen(26))
		var got v1alpha1.Component
		Expect(env.Client.Get(ctx, key, &got)).To(Succeed())
		raw, err := json.Marshal(got)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring(password))
		var events corev1.EventList
		Expect(env.Client.List(ctx, &events, client.InNamespace(ns))).To(Succeed())
		for _, e := range events.Items {
			Expect(e.Message).NotTo(ContainSubstring(password))
		}
		Expect(string(operator.Out.Contents()) + string(operator.Err.Contents())).NotTo(ContainSubstring(password))
	})

	It("creates the database again when it is dropped by hand, found by the poll", func() {
		key := client.ObjectKey{Namespace: ns, Name: "shop"}
		before := databaseOID("shop")
		dropDatabase(ctx, pg, "shop")

		Eventually(func() string { return databaseOID("shop") }).WithTimeout(30*time.Second).
			Should(And(MatchRegexp(`^\d+$`), Not(Equal(before))), "made again within the poll interval")
		Eventually(func() string { return externalID(key, "PostgresDatabase") }).WithTimeout(30 * time.Second).Should(Equal(databaseOID("shop")))
	})

	It("reports a dropped database in drift mode Warn and leaves it dropped", func() {
		key := client.ObjectKey{Namespace: ns, Name: "shop"}
		c := v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}
		edit(ctx, env, &c, func() { c.Spec.Drift.Mode = manifests.DriftWarn })
		Eventually(func() string { return readyReason(ctx, env, &c) }).WithTimeout(60 * time.Second).Should(Equal("True/Ready"))
		Eventually(func() int64 {
			Expect(env.Client.Get(ctx, key, &c)).To(Succeed())
			return c.Status.ObservedGeneration
		}).WithTimeout(60 * time.Second).Should(Equal(c.Generation))

		dropDatabase(ctx, pg, "shop")
		Eventually(func() string { return conditionMessage(ctx, env, key, "Drifted") }).WithTimeout(30 * time.Second).
			Should(ContainSubstring("PostgresDatabase"))
		Consistently(func() string { return databaseOID("shop") }).WithTimeout(3 * time.Second).Should(BeEmpty())

		edit(ctx, env, &c, func() { c.Spec.Drift.Mode = manifests.DriftCorrect })
		Eventually(func() string { return databaseOID("shop") }).WithTimeout(30 * time.Second).Should(MatchRegexp(`^\d+$`))
	})

	It("upgrades the waves before an unreachable server, names the dependent, and converges when it returns", func() {
		key := client.ObjectKey{Namespace: ns, Name: "shop"}
		Expect(pg.Stop()).To(Succeed())
		c := v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}
		edit(ctx, env, &c, func() { c.Spec.Values = jsonValues(shopValues("shop", pg.Port(), map[string]any{"note": "v2"})) })
		Eventually(func() string {
			var cm corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-settings"}, &cm)).To(Succeed())
			return cm.Data["note"]
		}).WithTimeout(60*time.Second).Should(Equal("v2"), "wave -1 is upgraded")
		Eventually(func() string { return conditionMessage(ctx, env, key, "Ready") }).WithTimeout(60 * time.Second).
			Should(And(HavePrefix("False/"), ContainSubstring("external PostgresRole app"), ContainSubstring("cannot connect")))

		Expect(pg.Start(ctx)).To(Succeed())
		Eventually(func() string {
			Expect(env.Client.Get(ctx, key, &c)).To(Succeed())
			if c.Status.ObservedGeneration != c.Generation {
				return "at an older generation"
			}
			return readyReason(ctx, env, &c)
		}).WithTimeout(90 * time.Second).Should(Equal("True/Ready"))
	})

	It("makes one database, not two, when the operator dies between its create and the record of its ID", func() {
		operator.Terminate().Wait(10 * time.Second)
		crashing := startShopOperator(binary, cfg, []string{"WAVEKIT_TEST_EXIT_AFTER_EXTERNAL_CREATE=PostgresDatabase/app"})
		c := shopComponent(ns, "crash", "crash", pg.Port(), nil)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		key := client.ObjectKeyFromObject(c)
		Eventually(crashing).WithTimeout(60 * time.Second).Should(gexec.Exit(3))
		Expect(databaseOID("crash")).To(MatchRegexp(`^\d+$`), "the database was made")
		Expect(externalID(key, "PostgresDatabase")).To(BeEmpty(), "and its ID not recorded")

		operator = startShopOperator(binary, cfg, nil)
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(90 * time.Second).Should(Equal("True/Ready"))
		count, err := query("SELECT count(*)::text FROM pg_database WHERE datname = 'crash'")
		Expect(err).NotTo(HaveOccurred())
		Expect(count).To(Equal("1"))
		Expect(externalID(key, "PostgresDatabase")).To(Equal(databaseOID("crash")))
	})

	It("drops the database only once the Deployment is gone, and keeps an orphaned one", func() {
		key := client.ObjectKey{Namespace: ns, Name: "shop"}
		deploy := appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}
		edit(ctx, env, &deploy, func() { deploy.Finalizers = append(deploy.Finalizers, "e2e.wavekit.dev/hold") })

		Expect(env.Client.Delete(ctx, &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}})).To(Succeed())
		Eventually(func() bool {
			Expect(env.Client.Get(ctx, key, &deploy)).To(Succeed())
			return deploy.DeletionTimestamp != nil
		}).WithTimeout(30 * time.Second).Should(BeTrue())
		Consistently(func() string { return databaseOID("shop") }).WithTimeout(3*time.Second).
			Should(MatchRegexp(`^\d+$`), "the database stays while the Deployment is there")

		edit(ctx, env, &deploy, func() { deploy.Finalizers = nil })
		Eventually(func() string { return databaseOID("shop") }).WithTimeout(60 * time.Second).Should(BeEmpty())
		Eventually(func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-db"}, &corev1.Secret{}))
		}).WithTimeout(30*time.Second).Should(BeTrue(), "its Secret goes with it")

		crash := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "crash"}}
		edit(ctx, env, crash, func() {
			crash.Spec.Values = jsonValues(shopValues("crash", pg.Port(), map[string]any{"deletePolicy": "orphan"}))
		})
		Eventually(func() string {
			var c v1alpha1.Component
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(crash), &c)).To(Succeed())
			if c.Status.ObservedGeneration != c.Generation {
				return "at an older generation"
			}
			return readyReason(ctx, env, &c)
		}).WithTimeout(60 * time.Second).Should(Equal("True/Ready"))
		Expect(env.Client.Delete(ctx, crash)).To(Succeed())
		Eventually(func() string { return readyReason(ctx, env, crash) }).WithTimeout(60 * time.Second).Should(Equal("gone"))
		Expect(databaseOID("crash")).To(MatchRegexp(`^\d+$`), "delete-policy orphan keeps it")
	})
})

// shopSourceRules are the chart's rbac.extraRules a user grants for
// testdata/shop: its ConfigMap and Deployment, and the Secrets of its
// dependents (the admin credentials it reads, the role's it writes).
func shopSourceRules() []any {
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	return []any{
		map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets"}, "verbs": verbs},
		map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": verbs},
	}
}

// startShopOperator runs the operator with the shop source; environ adds to
// the operator's environment. The caller stops it: it outlives the spec
// that starts it.
func startShopOperator(binary string, cfg *rest.Config, environ []string) *gexec.Session {
	GinkgoHelper()
	session, err := operatortest.Operator{Binary: binary, Config: cfg, Dir: GinkgoT().TempDir(), Out: GinkgoWriter, Env: environ,
		Args: []string{"--operator-name", "e2e.wavekit.dev",
			"--source", "shop=" + filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", "shop")}}.Start()
	Expect(err).NotTo(HaveOccurred())
	return session
}

func shopValues(database string, port int, extra map[string]any) map[string]any {
	values := map[string]any{"database": database, "adminSecret": "postgres-admin", "port": fmt.Sprint(port)}
	for k, v := range extra {
		values[k] = v
	}
	return values
}

func shopComponent(ns, name, database string, port int, extra map[string]any) *v1alpha1.Component {
	return &v1alpha1.Component{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.ComponentSpec{Source: "shop", Values: jsonValues(shopValues(database, port, extra))},
	}
}

func dropDatabase(ctx context.Context, pg *pgserver.Server, name string) {
	GinkgoHelper()
	conn, err := pgx.Connect(ctx, pg.ConnString(pgserver.AdminUser, string(pg.AdminCredentials()["password"]), "postgres"))
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	Expect(err).NotTo(HaveOccurred())
}

func conditionMessage(ctx context.Context, env *testcluster.Env, key client.ObjectKey, condition string) string {
	var got v1alpha1.Component
	if err := env.Client.Get(ctx, key, &got); err != nil {
		return err.Error()
	}
	for _, c := range got.Status.Conditions {
		if c.Type == condition {
			return string(c.Status) + "/" + c.Reason + ": " + c.Message
		}
	}
	return ""
}
