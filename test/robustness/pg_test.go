package robustness_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/wavekit-dev/wavekit/internal/testing/pgserver"
)

// adminQuery runs sql as the superuser and returns the first column of
// each row.
func adminQuery(ctx context.Context, sql string, args ...any) ([]string, error) {
	conn, err := pgx.Connect(ctx, pg.ConnString(pgserver.AdminUser, string(pg.AdminCredentials()["password"]), "postgres"))
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// logStatements makes the server log every statement (the soak looks for
// Secret values in its log); it lasts across restarts.
func logStatements() error {
	if _, err := adminQuery(ctx, "ALTER SYSTEM SET log_statement = 'all'"); err != nil {
		return err
	}
	_, err := adminQuery(ctx, "SELECT pg_reload_conf()::text")
	return err
}

// pgObjects are the roles and databases whose names start with prefix, as
// "role NAME" and "database NAME".
func pgObjects(ctx context.Context, prefix string) ([]string, error) {
	pattern := strings.ReplaceAll(prefix, "_", `\_`) + "%"
	roles, err := adminQuery(ctx, "SELECT 'role ' || rolname FROM pg_roles WHERE rolname LIKE $1", pattern)
	if err != nil {
		return nil, err
	}
	databases, err := adminQuery(ctx, "SELECT 'database ' || datname FROM pg_database WHERE datname LIKE $1", pattern)
	return append(roles, databases...), err
}
