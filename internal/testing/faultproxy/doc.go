// Package faultproxy is a TCP proxy on the loopback address that a test
// puts between a client (the operator) and a server (kube-apiserver) to
// inject network faults: it forwards bytes both ways unchanged (TLS passes
// through), and on request cuts every connection and refuses new ones for
// a while, or delays every chunk it forwards for a while.
package faultproxy
