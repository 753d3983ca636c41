// Package operatortest holds what suites that run the reference operator as
// its own process share: its binary built from the checkout, the identity
// the operator chart gives it (the chart's ServiceAccount, Roles and
// bindings rendered from config/chart), ServiceAccount tokens from the
// TokenRequest API, a free local address to serve on, and the binary
// started as that identity (Operator).
package operatortest
