package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/internal/alerts"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// alertFlags tune the alerts that the Alerts and Providers of each
// namespace ask for (docs/notifications.md).
type alertFlags struct {
	enabled       bool
	dispatch      notify.Options
	burst         int
	waveHeldAfter time.Duration
}

func bindAlertFlags(fs *flag.FlagSet) *alertFlags {
	a := &alertFlags{}
	fs.BoolVar(&a.enabled, "alerts", true, "send the alerts that the Alerts and Providers (wavekit.dev/v1alpha1) of each namespace ask for")
	fs.IntVar(&a.dispatch.QueueSize, "alert-queue-size", notify.DefaultQueueSize, "alerts waiting to be routed; past it an alert is dropped and counted (wavekit_alerts_dropped_total)")
	fs.IntVar(&a.dispatch.Attempts, "alert-attempts", notify.DefaultAttempts, "tries of an alert to a receiver that fails, before it is dropped and counted")
	fs.DurationVar(&a.dispatch.Backoff, "alert-backoff", notify.DefaultBackoff, "wait before the second try of an alert, doubled for each next one up to a minute")
	fs.DurationVar(&a.dispatch.DedupWindow, "alert-dedup-interval", notify.DefaultDedupWindow,
		"an alert of the same object, kind, reason, message, generation and revision goes to a Provider once within this interval (Flux's --rate-limit-interval)")
	fs.IntVar(&a.burst, "alert-burst", notify.DefaultBurst, "alerts a Provider gets at once before the rate limit holds them back (0: no rate limit)")
	fs.DurationVar(&a.dispatch.Refill, "alert-refill", notify.DefaultRefill, "past the burst, a Provider gets one more alert per this interval")
	fs.DurationVar(&a.waveHeldAfter, "alert-wave-held-after", component.DefaultWaveHeldAfter, "tell when a Component's wave has waited this long for its objects")
	return a
}

// check says what is wrong with the flags, in the order they are listed.
func (a *alertFlags) check() error {
	var errs []error
	for _, f := range []struct {
		name  string
		value int
	}{{"--alert-queue-size", a.dispatch.QueueSize}, {"--alert-attempts", a.dispatch.Attempts}} {
		if f.value < 1 {
			errs = append(errs, fmt.Errorf("%s %d: give at least 1", f.name, f.value))
		}
	}
	if a.burst < 0 {
		errs = append(errs, fmt.Errorf("--alert-burst %d: give 0 (no rate limit) or more", a.burst))
	}
	for _, f := range []struct {
		name  string
		value time.Duration
	}{{"--alert-backoff", a.dispatch.Backoff}, {"--alert-dedup-interval", a.dispatch.DedupWindow},
		{"--alert-refill", a.dispatch.Refill}, {"--alert-wave-held-after", a.waveHeldAfter}} {
		if f.value <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: give a positive duration", f.name, f.value))
		}
	}
	return errors.Join(errs...)
}

// setup starts the alerts' dispatcher in mgr and returns it, or nil when
// alerts are off (the flag, or CRDs that do not serve Alerts);
// defaultSA is the lockdown's account, as which Providers' Secrets are read.
func (a *alertFlags) setup(mgr ctrl.Manager, name, defaultSA string) (notify.Sink, error) {
	if !a.enabled {
		ctrl.Log.WithName("alerts").Info("alerts are off (--alerts=false)")
		return nil, nil
	}
	secrets, err := operator.NamespaceReaders(mgr, defaultSA)
	if err != nil {
		return nil, err
	}
	opts := a.dispatch
	opts.Burst = a.burst
	if a.burst == 0 {
		opts.Burst = -1 // no rate limit
	}
	return alerts.Setup(mgr, alerts.Options{Name: name, Secrets: secrets, Dispatch: opts})
}
