package postgres_test

import (
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/external/postgres"
)

// marker is a password the errors must never show.
const marker = "MARKER-pw-0d5e9c"

func TestErrorsNameTheResourceAndHideThePassword(t *testing.T) {
	ctx := testContext(t)
	p := postgres.RoleProvider()
	req := request(postgres.KindRole, "err_role", map[string]any{"login": true}, map[string][]byte{"password": []byte(marker)})
	if _, err := p.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Delete(ctx, req) })

	_, err := p.Create(ctx, req) // already there
	if err == nil || !strings.Contains(err.Error(), `PostgresRole "err_role"`) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a second Create: %v; want an error naming PostgresRole \"err_role\" that says it exists", err)
	}
	mustNotContain(t, err, marker)
	t.Log(err)

	wrong := request(postgres.KindRole, "err_role", req.Spec, req.Secret)
	wrong.Credentials["password"] = []byte(marker)
	_, err = p.Observe(ctx, wrong)
	if err == nil || !strings.Contains(err.Error(), `PostgresRole "err_role"`) {
		t.Fatalf("Observe with a wrong admin password: %v; want an error naming the role", err)
	}
	mustNotContain(t, err, marker)
	t.Log(err)
	if strings.Contains(srv.Log(), marker) {
		t.Fatal("the server's log shows a password")
	}

	bad := request(postgres.KindDatabase, "err_db", map[string]any{"ownr": "x"}, nil)
	_, err = postgres.DatabaseProvider().Create(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), `PostgresDatabase "err_db"`) || !strings.Contains(err.Error(), "ownr") {
		t.Fatalf("a mistyped spec field: %v; want an error naming the database and the field", err)
	}
	_, err = postgres.DatabaseProvider().Create(ctx, request(postgres.KindDatabase, "err_db", map[string]any{"owner": "nobody_here"}, nil))
	if err == nil || !strings.Contains(err.Error(), `PostgresDatabase "err_db"`) || !strings.Contains(err.Error(), "nobody_here") {
		t.Fatalf("an owner that does not exist: %v; want an error naming the database and the owner", err)
	}
	t.Log(err)
}

func TestServerDownThenBack(t *testing.T) {
	ctx := testContext(t)
	p := postgres.DatabaseProvider()
	req := request(postgres.KindDatabase, "outage", map[string]any{}, nil)
	created, err := p.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Delete(ctx, req) })
	req.ID = created.ID

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = p.Observe(ctx, req)
	if err == nil || !strings.Contains(err.Error(), `PostgresDatabase "outage"`) || !strings.Contains(err.Error(), "cannot connect") {
		t.Fatalf("Observe with the server down: %v; want an error naming the database that says it cannot connect", err)
	}
	mustNotContain(t, err, string(req.Credentials["password"]))
	t.Log(err)

	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	found, err := p.Observe(ctx, req)
	if err != nil || found == nil || found.ID != created.ID || !found.Ready {
		t.Fatalf("Observe with the server back = %+v, %v; want ready with ID %s", found, err, created.ID)
	}
}
