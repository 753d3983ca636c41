package postgres_test

import (
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
)

func TestRoleLifecycle(t *testing.T) {
	ctx := testContext(t)
	p := postgres.RoleProvider()
	secret := map[string][]byte{"password": []byte("first-Pw-1234"), "username": []byte("app_role")}
	req := request(postgres.KindRole, "app_role", map[string]any{"login": true}, secret)

	created, err := p.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if created.ID == "" || !created.Ready {
		t.Fatalf("created %+v, want an ID and ready", created)
	}
	if got := adminQuery(t, ctx, "SELECT oid::text FROM pg_roles WHERE rolname = 'app_role'"); got != created.ID {
		t.Fatalf("ID %s, pg_roles says %s", created.ID, got)
	}
	if err := login(ctx, "app_role", "first-Pw-1234", "postgres"); err != nil {
		t.Fatalf("logging in with the Secret's password: %v", err)
	}

	// A crash after Create and before the ID was recorded: found by Key.
	found, err := p.Observe(ctx, req)
	if err != nil || found == nil || found.ID != created.ID {
		t.Fatalf("Observe without ID = %+v, %v; want ID %s", found, err, created.ID)
	}
	req.ID = created.ID
	found, err = p.Observe(ctx, req)
	if err != nil || found == nil || !p.(external.Matcher).Matches(req.Spec, *found) {
		t.Fatalf("Observe by ID = %+v, %v; want a match of %v", found, err, req.Spec)
	}

	// Update: a connection limit, and a new password from the Secret.
	req.Spec = map[string]any{"login": true, "connectionLimit": float64(3)}
	if p.(external.Matcher).Matches(req.Spec, *found) {
		t.Fatal("a changed connection limit still matches")
	}
	req.Secret = map[string][]byte{"password": []byte("second-Pw-5678")}
	updated, err := p.Update(ctx, req, *found)
	if err != nil {
		t.Fatal(err)
	}
	if !p.(external.Matcher).Matches(req.Spec, updated) || updated.ID != created.ID {
		t.Fatalf("updated %+v, want %v with ID %s", updated, req.Spec, created.ID)
	}
	if got := adminQuery(t, ctx, "SELECT rolconnlimit::text FROM pg_roles WHERE rolname = 'app_role'"); got != "3" {
		t.Fatalf("rolconnlimit = %s, want 3", got)
	}
	if err := login(ctx, "app_role", "second-Pw-5678", "postgres"); err != nil {
		t.Fatalf("logging in with the new password: %v", err)
	}
	if err := login(ctx, "app_role", "first-Pw-1234", "postgres"); err == nil {
		t.Fatal("the old password still logs in")
	}

	// Drift by hand: login taken away is seen, and Update puts it back.
	adminQuery(t, ctx, "ALTER ROLE app_role NOLOGIN")
	found, err = p.Observe(ctx, req)
	if err != nil || found == nil || p.(external.Matcher).Matches(req.Spec, *found) {
		t.Fatalf("Observe after NOLOGIN = %+v, %v; want a mismatch", found, err)
	}
	if _, err := p.Update(ctx, req, *found); err != nil {
		t.Fatal(err)
	}
	if err := login(ctx, "app_role", "second-Pw-5678", "postgres"); err != nil {
		t.Fatalf("logging in after the update: %v", err)
	}

	for range 2 { // deleting twice is fine
		if err := p.Delete(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if found, err := p.Observe(ctx, req); err != nil || found != nil {
		t.Fatalf("Observe after Delete = %+v, %v; want nothing", found, err)
	}
}

func TestRoleNameFromSpec(t *testing.T) {
	ctx := testContext(t)
	p := postgres.RoleProvider()
	req := request(postgres.KindRole, "key_ignored", map[string]any{"name": "Named-Role"}, nil)
	created, err := p.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := adminQuery(t, ctx, "SELECT oid::text FROM pg_roles WHERE rolname = 'Named-Role'"); got != created.ID {
		t.Fatalf("no role \"Named-Role\" with ID %s (got %q)", created.ID, got)
	}
	if err := p.Delete(ctx, request(postgres.KindRole, "key_ignored", nil, nil)); err != nil {
		t.Fatal(err)
	}
	req.ID = created.ID
	req.Spec = nil // a Delete after a restart knows only the inventory's ID
	if err := p.Delete(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := adminQuery(t, ctx, "SELECT count(*)::text FROM pg_roles WHERE rolname = 'Named-Role'"); got != "0" {
		t.Fatalf("%s roles \"Named-Role\" left after Delete by ID", got)
	}
}
