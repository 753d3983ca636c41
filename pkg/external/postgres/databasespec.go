package postgres

import (
	"github.com/wavekit-dev/wavekit/pkg/external"
)

// databaseSpec is a PostgresDatabase's desired state: {name, owner,
// connectionLimit}; an absent owner means the credentials' user, an
// absent limit none, and an absent name the request's Key.
type databaseSpec struct {
	fields
	name  string
	owner string
	limit int
}

// parseDatabase reads spec, naming the database key when it has no name.
func parseDatabase(spec map[string]any, key string) (databaseSpec, error) {
	f, err := newFields(spec, "name", "owner", "connectionLimit")
	if err != nil {
		return databaseSpec{}, err
	}
	d := databaseSpec{fields: f}
	if d.name, err = nameOf(f, key); err != nil {
		return d, err
	}
	if d.owner, err = f.string("owner", ""); err != nil {
		return d, err
	}
	if d.limit, err = f.int("connectionLimit", noLimit); err != nil {
		return d, err
	}
	return d, nil
}

// databaseRow is a database as pg_database shows it.
type databaseRow struct {
	oid        uint32
	name       string
	owner      string
	limit      int
	allowConns bool
}

// observation returns the row in the terms of want: the fields want sets,
// and a connection limit other than none. Ready is that the database
// accepts connections.
func (r databaseRow) observation(want databaseSpec) external.Observation {
	spec := map[string]any{}
	if want.has("name") {
		spec["name"] = r.name
	}
	if want.has("owner") {
		spec["owner"] = r.owner
	}
	if want.has("connectionLimit") || r.limit != noLimit {
		spec["connectionLimit"] = int64(r.limit)
	}
	obs := external.Observation{ID: oidString(r.oid), Spec: spec, Ready: r.allowConns && r.limit != -2}
	if !obs.Ready {
		obs.Message = "the database does not accept connections (datallowconn is false or it is half dropped)"
	}
	return obs
}

// matches reports whether the row is what want asks for; an owner want
// leaves open matches any.
func (r databaseRow) matches(want databaseSpec) bool {
	return r.name == want.name && (want.owner == "" || r.owner == want.owner) && r.limit == want.limit
}
