package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/pkg/external"
)

// databases is the Provider of PostgresDatabase.
type databases struct{}

// Observe finds the database by its OID, else by its name.
func (databases) Observe(ctx context.Context, req external.Request) (*external.Observation, error) {
	want, err := parseDatabase(req.Spec, req.Key)
	if err != nil {
		return nil, failed(req, KindDatabase, req.Key, "reading its spec", err)
	}
	var row *databaseRow
	err = withConn(ctx, req, "", func(conn *pgx.Conn) (err error) {
		row, err = findDatabase(ctx, conn, req.ID, want.name)
		return err
	})
	if err != nil || row == nil {
		return nil, failed(req, KindDatabase, want.name, "observing it", err)
	}
	obs := row.observation(want)
	return &obs, nil
}

// Create makes the database with its owner and connection limit.
func (databases) Create(ctx context.Context, req external.Request) (external.Observation, error) {
	want, err := parseDatabase(req.Spec, req.Key)
	if err != nil {
		return external.Observation{}, failed(req, KindDatabase, req.Key, "reading its spec", err)
	}
	var row *databaseRow
	err = withConn(ctx, req, "", func(conn *pgx.Conn) error {
		sql := "CREATE DATABASE " + ident(want.name)
		if want.owner != "" {
			sql += " OWNER " + ident(want.owner)
		}
		sql += fmt.Sprintf(" CONNECTION LIMIT %d", want.limit)
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
		row, err = findDatabase(ctx, conn, "", want.name)
		return err
	})
	if err == nil && row == nil {
		err = fmt.Errorf("not found right after CREATE DATABASE")
	}
	if err != nil {
		return external.Observation{}, failed(req, KindDatabase, want.name, "creating it", err)
	}
	return row.observation(want), nil
}

// Update renames the database if its name changed, and sets its owner and
// connection limit.
func (databases) Update(ctx context.Context, req external.Request, current external.Observation) (external.Observation, error) {
	want, err := parseDatabase(req.Spec, req.Key)
	if err != nil {
		return external.Observation{}, failed(req, KindDatabase, req.Key, "reading its spec", err)
	}
	var row *databaseRow
	err = withConn(ctx, req, "", func(conn *pgx.Conn) error {
		if row, err = findDatabase(ctx, conn, firstOf(current.ID, req.ID), want.name); err != nil || row == nil {
			return err
		}
		for _, sql := range alterDatabase(*row, want) {
			if _, err := conn.Exec(ctx, sql); err != nil {
				return err
			}
		}
		row, err = findDatabase(ctx, conn, oidString(row.oid), want.name)
		return err
	})
	if err == nil && row == nil {
		err = fmt.Errorf("it does not exist")
	}
	if err != nil {
		return external.Observation{}, failed(req, KindDatabase, want.name, "updating it", err)
	}
	return row.observation(want), nil
}

// alterDatabase returns the statements that bring row to want.
func alterDatabase(row databaseRow, want databaseSpec) []string {
	var sqls []string
	if row.name != want.name {
		sqls = append(sqls, "ALTER DATABASE "+ident(row.name)+" RENAME TO "+ident(want.name))
	}
	if want.owner != "" && row.owner != want.owner {
		sqls = append(sqls, "ALTER DATABASE "+ident(want.name)+" OWNER TO "+ident(want.owner))
	}
	if row.limit != want.limit {
		sqls = append(sqls, fmt.Sprintf("ALTER DATABASE %s CONNECTION LIMIT %d", ident(want.name), want.limit))
	}
	return sqls
}

// Delete drops the database, ending its sessions on PostgreSQL 13 and
// later; a database that is gone is no error.
func (databases) Delete(ctx context.Context, req external.Request) error {
	name := req.Key
	if want, err := parseDatabase(req.Spec, req.Key); err == nil {
		name = want.name
	}
	maintenance := ""
	if s, err := serverOf(req); err == nil && s.dbname == name {
		maintenance = "postgres"
	}
	err := withConn(ctx, req, maintenance, func(conn *pgx.Conn) error {
		row, err := findDatabase(ctx, conn, req.ID, name)
		if err != nil || row == nil {
			return err
		}
		name = row.name
		return dropDatabase(ctx, conn, row.name)
	})
	return failed(req, KindDatabase, name, "dropping it", err)
}

// dropDatabase drops name, WITH (FORCE) where the server has it (13+).
func dropDatabase(ctx context.Context, conn *pgx.Conn, name string) error {
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return fmt.Errorf("reading the server's version: %w", err)
	}
	sql := "DROP DATABASE IF EXISTS " + ident(name)
	if version >= 130000 {
		sql += " WITH (FORCE)"
	}
	_, err := conn.Exec(ctx, sql)
	return err
}

// Matches compares the desired spec with the observed one field by field,
// whatever Go number types the two carry.
func (databases) Matches(desired map[string]any, observed external.Observation) bool {
	want, err := parseDatabase(desired, "(key)")
	if err != nil {
		return false
	}
	got, err := parseDatabase(observed.Spec, want.name)
	if err != nil {
		return false
	}
	return databaseRow{name: got.name, owner: got.owner, limit: got.limit}.matches(want)
}
