// Package postgres is a ready external.Provider for PostgreSQL: roles
// (kind PostgresRole) and databases (kind PostgresDatabase) of one server,
// reached with the credentials of the dependent's credentialsFrom Secret
// (keys host, port, user, password, dbname (default postgres), sslmode
// (default disable)).
//
// A PostgresRole's spec is {login: bool, connectionLimit: int, name:
// string}; its name defaults to the request's Key and its password comes
// from the dependent's Secret (key password). A PostgresDatabase's spec is
// {owner: role, connectionLimit: int, name: string}, its name also
// defaulting to the Key. An absent login or connectionLimit means
// PostgreSQL's default (NOLOGIN, no limit), an absent owner whoever owns
// the database (the credentials' user, when it made it), and a field the
// spec does not know is an error. Each one's ID is its OID in
// decimal; Observe finds it by ID, else by name, so that a resource made
// just before a crash is found rather than made twice. Both providers are
// external.Matchers: they compare desired and observed field by field,
// whatever number types a JSON or YAML decoder gave. Register them
// with a reconciler as
//
//	component.ReconcilerOptions{ExternalProviders: postgres.Providers()}
//
// Passwords never travel as SQL text: a role's password is sent as a
// SCRAM-SHA-256 verifier computed here, and errors have every password of
// the request replaced, so that neither the server's log nor an error
// shows one.
package postgres
