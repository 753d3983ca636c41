package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ident quotes a name as an SQL identifier.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// oidString is an OID as an Observation's ID.
func oidString(oid uint32) string { return strconv.FormatUint(uint64(oid), 10) }

// parseOID reads an ID back into an OID.
func parseOID(id string) (uint32, error) {
	oid, err := strconv.ParseUint(id, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("the ID %q is not an OID: %w", id, err)
	}
	return uint32(oid), nil
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// findByIDOrName runs query with the OID of id when id is set, and, when
// that finds nothing, with name instead; query's one parameter is compared
// with the catalog's oid column or name column in turn. It returns
// pgx.ErrNoRows when neither finds a row.
func findByIDOrName(ctx context.Context, conn *pgx.Conn, id, name string, byOID, byName string, scan func(pgx.Row) error) error {
	if id != "" {
		oid, err := parseOID(id)
		if err != nil {
			return err
		}
		err = scan(conn.QueryRow(ctx, byOID, oid))
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
	}
	return scan(conn.QueryRow(ctx, byName, name))
}

const roleColumns = "SELECT oid, rolname, rolcanlogin, rolconnlimit FROM pg_catalog.pg_roles WHERE "

// findRole returns the role of OID id, else of that name; nil when there
// is none.
func findRole(ctx context.Context, conn *pgx.Conn, id, name string) (*roleRow, error) {
	var r roleRow
	err := findByIDOrName(ctx, conn, id, name, roleColumns+"oid = $1", roleColumns+"rolname = $1", func(row pgx.Row) error {
		return row.Scan(&r.oid, &r.name, &r.login, &r.limit)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking it up in pg_roles: %w", err)
	}
	return &r, nil
}

// roleOptions returns the options of CREATE or ALTER ROLE for want, with
// the Secret's password as a SCRAM verifier when the Secret has one.
func roleOptions(want roleSpec, secret map[string][]byte) (string, error) {
	var b strings.Builder
	if want.login {
		b.WriteString(" LOGIN")
	} else {
		b.WriteString(" NOLOGIN")
	}
	fmt.Fprintf(&b, " CONNECTION LIMIT %d", want.limit)
	if password := secret["password"]; len(password) > 0 {
		verifier, err := scramVerifier(string(password))
		if err != nil {
			return "", err
		}
		b.WriteString(" PASSWORD " + literal(verifier))
	}
	return b.String(), nil
}

// literal quotes s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

const databaseColumns = "SELECT oid, datname, pg_catalog.pg_get_userbyid(datdba), datconnlimit, datallowconn FROM pg_catalog.pg_database WHERE "

// findDatabase returns the database of OID id, else of that name; nil
// when there is none.
func findDatabase(ctx context.Context, conn *pgx.Conn, id, name string) (*databaseRow, error) {
	var d databaseRow
	err := findByIDOrName(ctx, conn, id, name, databaseColumns+"oid = $1", databaseColumns+"datname = $1", func(row pgx.Row) error {
		return row.Scan(&d.oid, &d.name, &d.owner, &d.limit, &d.allowConns)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking it up in pg_database: %w", err)
	}
	return &d, nil
}
