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
// defaulting to the Key. Each one's ID is its OID in decimal. Register them
// with a reconciler as
//
//	component.ReconcilerOptions{ExternalProviders: postgres.Providers()}
//
// Passwords never travel as SQL text: a role's password is sent as a
// SCRAM-SHA-256 verifier computed here, and errors have every password of
// the request replaced, so that neither the server's log nor an error
// shows one.
package postgres
