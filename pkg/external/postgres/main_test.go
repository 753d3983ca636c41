package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
	"github.com/wavekit-dev/wavekit/pkg/external"
)

// srv is the real PostgreSQL server the tests run against.
var srv *pgserver.Server

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := pgserver.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv = s
	code := m.Run()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// testContext returns a context that ends with the test.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// request returns a request for kind under key with the admin credentials.
func request(kind, key string, spec map[string]any, secret map[string][]byte) external.Request {
	return external.Request{
		Kind: kind, Name: key, Namespace: "test", Key: key,
		Spec: spec, Credentials: srv.AdminCredentials(), Secret: secret,
	}
}

// login connects as user with password to database and runs a query.
func login(ctx context.Context, user, password, database string) error {
	conn, err := pgx.Connect(ctx, srv.ConnString(user, password, database))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var one int
	return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// adminQuery runs sql as the superuser and returns its one text value.
func adminQuery(t *testing.T, ctx context.Context, sql string, args ...any) string {
	t.Helper()
	c := srv.AdminCredentials()
	conn, err := pgx.Connect(ctx, srv.ConnString(string(c["user"]), string(c["password"]), "postgres"))
	if err != nil {
		t.Fatalf("connecting as the superuser: %v", err)
	}
	defer conn.Close(ctx)
	var out string
	if err := conn.QueryRow(ctx, sql, args...).Scan(&out); err != nil && err != pgx.ErrNoRows {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func mustNotContain(t *testing.T, err error, secret string) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Fatalf("the error shows a password: %v", err)
	}
}
