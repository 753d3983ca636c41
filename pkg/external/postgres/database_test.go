package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
)

func TestDatabaseLifecycle(t *testing.T) {
	ctx := testContext(t)
	roles, dbs := postgres.RoleProvider(), postgres.DatabaseProvider()
	for _, owner := range []string{"shop_owner", "shop_owner2"} {
		owner := request(postgres.KindRole, owner, map[string]any{"login": true}, map[string][]byte{"password": []byte("owner-Pw-1")})
		if _, err := roles.Create(ctx, owner); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = roles.Delete(ctx, owner) })
	}
	req := request(postgres.KindDatabase, "shop", map[string]any{"owner": "shop_owner"}, nil)
	created, err := dbs.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !created.Ready || created.ID != adminQuery(t, ctx, "SELECT oid::text FROM pg_database WHERE datname = 'shop'") {
		t.Fatalf("created %+v, want ready with the OID of shop", created)
	}
	if got := adminQuery(t, ctx, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'shop'"); got != "shop_owner" {
		t.Fatalf("owner %s, want shop_owner", got)
	}
	// The role's password lets it log in to its database.
	if err := login(ctx, "shop_owner", "owner-Pw-1", "shop"); err != nil {
		t.Fatalf("logging in to shop as its owner: %v", err)
	}

	found, err := dbs.Observe(ctx, req) // no ID: the crash case
	if err != nil || found == nil || found.ID != created.ID || !dbs.(external.Matcher).Matches(req.Spec, *found) {
		t.Fatalf("Observe without ID = %+v, %v; want ID %s matching %v", found, err, created.ID, req.Spec)
	}

	req.ID = created.ID
	req.Spec = map[string]any{"owner": "shop_owner2", "connectionLimit": int64(5)}
	if dbs.(external.Matcher).Matches(req.Spec, *found) {
		t.Fatal("a new owner still matches")
	}
	updated, err := dbs.Update(ctx, req, *found)
	if err != nil {
		t.Fatal(err)
	}
	if !dbs.(external.Matcher).Matches(req.Spec, updated) {
		t.Fatalf("updated %+v, want %v", updated, req.Spec)
	}
	if got := adminQuery(t, ctx, "SELECT pg_get_userbyid(datdba) || ' ' || datconnlimit FROM pg_database WHERE datname = 'shop'"); got != "shop_owner2 5" {
		t.Fatalf("owner and limit %q, want shop_owner2 5", got)
	}

	// Delete ends the sessions still open on it.
	session, err := pgx.Connect(ctx, srv.ConnString("shop_owner", "owner-Pw-1", "shop"))
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close(ctx)
	for range 2 { // deleting twice is fine
		if err := dbs.Delete(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if found, err := dbs.Observe(ctx, req); err != nil || found != nil {
		t.Fatalf("Observe after Delete = %+v, %v; want nothing", found, err)
	}
}

func TestDatabaseRecreatedByHandIsFoundByName(t *testing.T) {
	ctx := testContext(t)
	dbs := postgres.DatabaseProvider()
	req := request(postgres.KindDatabase, "handmade", map[string]any{}, nil)
	created, err := dbs.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dbs.Delete(ctx, req) })
	adminQuery(t, ctx, "DROP DATABASE handmade")
	req.ID = created.ID
	if found, err := dbs.Observe(ctx, req); err != nil || found != nil {
		t.Fatalf("Observe after a drop by hand = %+v, %v; want nothing", found, err)
	}
	adminQuery(t, ctx, "CREATE DATABASE handmade")
	found, err := dbs.Observe(ctx, req)
	if err != nil || found == nil || found.ID == created.ID {
		t.Fatalf("Observe after a create by hand = %+v, %v; want the new database", found, err)
	}
}
