// Package charttest gives suites that run the reference operator as its
// own process the identity the operator chart gives it: the chart's
// ServiceAccount, Roles and bindings rendered from config/chart, and
// ServiceAccount tokens from the TokenRequest API.
package charttest
