package main

import (
	"crypto/tls"
	"flag"

	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Default addresses of the metrics endpoint.
const (
	secureMetricsAddr   = ":8443"
	insecureMetricsAddr = ":8080"
)

// metricsFlags configure the metrics endpoint: HTTPS with authentication
// and authorization by default, plain HTTP only when asked for.
type metricsFlags struct {
	secure  bool
	certDir string
}

// bindMetricsFlags registers --metrics-secure and --metrics-cert-dir on fs.
func bindMetricsFlags(fs *flag.FlagSet) *metricsFlags {
	f := &metricsFlags{}
	fs.BoolVar(&f.secure, "metrics-secure", true,
		"serve metrics over HTTPS, only to clients whose token may get the non-resource URL /metrics (TokenReview and SubjectAccessReview); false serves plain HTTP to anyone")
	fs.StringVar(&f.certDir, "metrics-cert-dir", "",
		"directory with tls.crt and tls.key for the HTTPS metrics endpoint (empty: a self-signed certificate)")
	return f
}

// options returns the metrics server options for the address given by
// --metrics-bind-address; an empty address is the default of the mode.
func (f *metricsFlags) options(addr string) metricsserver.Options {
	if !f.secure {
		if addr == "" {
			addr = insecureMetricsAddr
		}
		return metricsserver.Options{BindAddress: addr}
	}
	if addr == "" {
		addr = secureMetricsAddr
	}
	return metricsserver.Options{
		BindAddress:    addr,
		SecureServing:  true,
		FilterProvider: filters.WithAuthenticationAndAuthorization,
		CertDir:        f.certDir,
		// HTTP/1.1 only: HTTP/2 stream resets are a known denial of service
		// (CVE-2023-44487) that metrics scrapers do not need to risk.
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	}
}
