package postgres

import (
	"github.com/wavekit-dev/wavekit/pkg/external"
)

// roleSpec is a PostgresRole's desired state: {name, login,
// connectionLimit}; an absent field means PostgreSQL's default (NOLOGIN,
// no limit), and an absent name the request's Key.
type roleSpec struct {
	fields
	name  string
	login bool
	limit int
}

// parseRole reads spec, naming the role key when it has no name.
func parseRole(spec map[string]any, key string) (roleSpec, error) {
	f, err := newFields(spec, "name", "login", "connectionLimit")
	if err != nil {
		return roleSpec{}, err
	}
	r := roleSpec{fields: f}
	if r.name, err = nameOf(f, key); err != nil {
		return r, err
	}
	if r.login, err = f.bool("login", false); err != nil {
		return r, err
	}
	if r.limit, err = f.int("connectionLimit", noLimit); err != nil {
		return r, err
	}
	return r, nil
}

// roleRow is a role as pg_roles shows it.
type roleRow struct {
	oid   uint32
	name  string
	login bool
	limit int
}

// observation returns the row in the terms of want: the fields want sets,
// and those that differ from PostgreSQL's defaults.
func (r roleRow) observation(want roleSpec) external.Observation {
	spec := map[string]any{}
	if want.has("name") {
		spec["name"] = r.name
	}
	if want.has("login") || r.login {
		spec["login"] = r.login
	}
	if want.has("connectionLimit") || r.limit != noLimit {
		spec["connectionLimit"] = int64(r.limit)
	}
	return external.Observation{ID: oidString(r.oid), Spec: spec, Ready: true}
}

// matches reports whether the row is what want asks for.
func (r roleRow) matches(want roleSpec) bool {
	return r.name == want.name && r.login == want.login && r.limit == want.limit
}
