// Package pgserver starts a real PostgreSQL server for tests: Debian's
// postgresql binaries (/usr/lib/postgresql/<version>/bin, installed by
// `make postgres`) run as a local process on a free TCP port of 127.0.0.1,
// in a temporary directory of their own, with a superuser whose random
// password is checked by SCRAM on TCP. As root, initdb and postgres run as
// the postgres system user, since PostgreSQL refuses to run as root.
//
// Each Start makes its own directory and port, so parallel test packages
// do not meet. Stop and Start take a server down and bring it back on the
// same port and data directory; Close removes everything.
package pgserver
