package receiver

import (
	"fmt"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
)

// Bounds of the requests of one operator process: every request takes a
// token of the process's bucket before any work (the path lookup, the
// Secret read, the signature), and a verified one a token of its
// Receiver's bucket too before it asks for anything.
const (
	maxBodyBytes   = 1 << 20
	allRate        = 20 // requests a second
	allBurst       = 50
	receiverRate   = 1 // verified requests a second, per Receiver
	receiverBurst  = 10
	receiverTokens = 4096 // Receivers whose buckets are kept
)

// limits are the token buckets of the requests; now comes from the caller,
// so that a test decides the time.
type limits struct {
	all *rate.Limiter
	mu  sync.Mutex
	per *lru.Cache[types.UID, *rate.Limiter]
}

func newLimits() (*limits, error) {
	per, err := lru.New[types.UID, *rate.Limiter](receiverTokens)
	if err != nil {
		return nil, fmt.Errorf("the receivers' rate limits: %w", err)
	}
	return &limits{all: rate.NewLimiter(allRate, allBurst), per: per}, nil
}

// allowAny takes a token of the process's bucket.
func (l *limits) allowAny(now time.Time) bool { return l.all.AllowN(now, 1) }

// allowReceiver takes a token of the bucket of the Receiver uid.
func (l *limits) allowReceiver(uid types.UID, now time.Time) bool {
	l.mu.Lock()
	limiter, ok := l.per.Get(uid)
	if !ok {
		limiter = rate.NewLimiter(receiverRate, receiverBurst)
		l.per.Add(uid, limiter)
	}
	l.mu.Unlock()
	return limiter.AllowN(now, 1)
}
