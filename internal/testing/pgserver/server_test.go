package pgserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
)

func TestStartStopStartClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := pgserver.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	creds := s.AdminCredentials()
	admin := s.ConnString(string(creds["user"]), string(creds["password"]), string(creds["dbname"]))
	mustQuery(ctx, t, admin, "CREATE TABLE kept (n int)")

	if _, err := pgx.Connect(ctx, s.ConnString("admin", "wrong", "postgres")); err == nil {
		t.Fatal("logged in with a wrong password")
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if conn, err := pgx.Connect(ctx, admin); err == nil {
		_ = conn.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mustQuery(ctx, t, admin, "SELECT count(*) FROM kept")
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	mustQuery(ctx, t, admin, "SELECT count(*) FROM kept")
}

func TestParallelServersDiffer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := pgserver.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := pgserver.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Port() == b.Port() {
		t.Fatalf("two servers on port %d", a.Port())
	}
	if string(a.AdminCredentials()["password"]) == string(b.AdminCredentials()["password"]) {
		t.Fatal("two servers with the same password")
	}
}

func mustQuery(ctx context.Context, t *testing.T, connString, sql string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		t.Fatalf("connecting: %v", strings.ReplaceAll(err.Error(), connString, "<url>"))
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
