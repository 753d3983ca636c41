package component

import (
	"errors"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
)

// IsTargetUnreachable tells whether err says that the API server at host
// (a rest.Config's Host) did not answer, rather than that it answered with
// a refusal or an error. It looks at the errors' types: the error of a
// connection to the target that did not answer (to host when host is
// given), a request's url.Error, which must be to host when host is given
// (a chart repository that does not answer is not the target), holding a
// net.OpError, a net.DNSError or a net.Error that timed out, or one of the
// transport's errors apimachinery's utilnet recognises; or an API status
// 503. A certificate the client does not trust, a 403 or a 500 are
// answers.
func IsTargetUnreachable(err error, host string) bool {
	return targets.IsUnreachable(err, host)
}

// unreachable gives o the reason ReasonTargetUnreachable when err says the
// component's target did not answer — its connection failed so
// (targets.UnreachableError), or a request to host, the target's, did (none:
// nothing to tell) — and o is a failure (Retrying, or an Error, which a
// render error that wraps the target's answer is): it is no longer
// Stalled, and is retried when o says.
func unreachable(err error, o outcome.Outcome, host string) outcome.Outcome {
	var connecting *targets.UnreachableError
	if (o.Reason == ReasonRetrying || o.Reason == ReasonError) &&
		(errors.As(err, &connecting) || host != "" && IsTargetUnreachable(err, host)) {
		o.Reason, o.Stalled = ReasonTargetUnreachable, false
	}
	return o
}
