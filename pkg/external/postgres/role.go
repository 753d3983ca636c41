package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/pkg/external"
)

// roles is the Provider of PostgresRole.
type roles struct{}

// Observe finds the role by its OID, else by its name.
func (roles) Observe(ctx context.Context, req external.Request) (*external.Observation, error) {
	want, err := parseRole(req.Spec, req.Key)
	if err != nil {
		return nil, failed(req, KindRole, req.Key, "reading its spec", err)
	}
	var row *roleRow
	err = withConn(ctx, req, "", func(conn *pgx.Conn) (err error) {
		row, err = findRole(ctx, conn, req.ID, want.name)
		return err
	})
	if err != nil || row == nil {
		return nil, failed(req, KindRole, want.name, "observing it", err)
	}
	obs := row.observation(want)
	return &obs, nil
}

// Create makes the role, with the password of the request's Secret.
func (roles) Create(ctx context.Context, req external.Request) (external.Observation, error) {
	want, err := parseRole(req.Spec, req.Key)
	if err != nil {
		return external.Observation{}, failed(req, KindRole, req.Key, "reading its spec", err)
	}
	var row *roleRow
	err = withConn(ctx, req, "", func(conn *pgx.Conn) error {
		options, err := roleOptions(want, req.Secret)
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "CREATE ROLE "+ident(want.name)+" WITH"+options); err != nil {
			return err
		}
		row, err = findRole(ctx, conn, "", want.name)
		return err
	})
	if err == nil && row == nil {
		err = fmt.Errorf("not found right after CREATE ROLE")
	}
	if err != nil {
		return external.Observation{}, failed(req, KindRole, want.name, "creating it", err)
	}
	return row.observation(want), nil
}

// Update renames the role if its name changed, sets its login and
// connection limit, and sets its password again from the Secret.
func (roles) Update(ctx context.Context, req external.Request, current external.Observation) (external.Observation, error) {
	want, err := parseRole(req.Spec, req.Key)
	if err != nil {
		return external.Observation{}, failed(req, KindRole, req.Key, "reading its spec", err)
	}
	var row *roleRow
	err = withConn(ctx, req, "", func(conn *pgx.Conn) error {
		if row, err = findRole(ctx, conn, firstOf(current.ID, req.ID), want.name); err != nil || row == nil {
			return err
		}
		if row.name != want.name {
			if _, err := conn.Exec(ctx, "ALTER ROLE "+ident(row.name)+" RENAME TO "+ident(want.name)); err != nil {
				return err
			}
		}
		options, err := roleOptions(want, req.Secret)
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "ALTER ROLE "+ident(want.name)+" WITH"+options); err != nil {
			return err
		}
		row, err = findRole(ctx, conn, oidString(row.oid), want.name)
		return err
	})
	if err == nil && row == nil {
		err = fmt.Errorf("it does not exist")
	}
	if err != nil {
		return external.Observation{}, failed(req, KindRole, want.name, "updating it", err)
	}
	return row.observation(want), nil
}

// Delete drops the role; a role that is gone is no error. A role that
// still owns objects is not dropped: the error says which depend on it.
func (roles) Delete(ctx context.Context, req external.Request) error {
	name := req.Key
	if want, err := parseRole(req.Spec, req.Key); err == nil {
		name = want.name
	}
	err := withConn(ctx, req, "", func(conn *pgx.Conn) error {
		row, err := findRole(ctx, conn, req.ID, name)
		if err != nil || row == nil {
			return err
		}
		name = row.name
		_, err = conn.Exec(ctx, "DROP ROLE IF EXISTS "+ident(row.name))
		return err
	})
	return failed(req, KindRole, name, "dropping it", err)
}

// Matches compares the desired spec with the observed one field by field,
// whatever Go number types the two carry.
func (roles) Matches(desired map[string]any, observed external.Observation) bool {
	want, err := parseRole(desired, "(key)")
	if err != nil {
		return false
	}
	got, err := parseRole(observed.Spec, want.name)
	if err != nil {
		return false
	}
	return roleRow{name: got.name, login: got.login, limit: got.limit}.matches(want)
}
