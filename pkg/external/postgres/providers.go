package postgres

import "github.com/wavekit-dev/wavekit/pkg/external"

// The kinds this package provides, as a render names them.
const (
	// KindRole is a PostgreSQL role (a user when it can log in).
	KindRole = "PostgresRole"
	// KindDatabase is a PostgreSQL database.
	KindDatabase = "PostgresDatabase"
)

// Providers returns the providers of this package by kind, for
// component.ReconcilerOptions.ExternalProviders.
func Providers() map[string]external.Provider {
	return map[string]external.Provider{
		KindRole:     RoleProvider(),
		KindDatabase: DatabaseProvider(),
	}
}

// RoleProvider returns the Provider of PostgresRole.
func RoleProvider() external.Provider { return roles{} }

// DatabaseProvider returns the Provider of PostgresDatabase.
func DatabaseProvider() external.Provider { return databases{} }

// Both providers compare desired and observed themselves.
var (
	_ external.Matcher = roles{}
	_ external.Matcher = databases{}
)
