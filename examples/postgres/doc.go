// Command postgres is an example component operator built on pkg/component
// whose component, WebApp, is a Deployment with a PostgreSQL role and
// database outside Kubernetes: the role and the database in wave 0, made
// by the providers of pkg/external/postgres with the admin credentials of
// the Secret spec.adminSecretRef names, and the Deployment in wave 1,
// reading the Secret <name>-db that holds the role's generated password.
// See README.md for how to run it.
package main
