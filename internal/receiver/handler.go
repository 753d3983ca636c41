package receiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/go-logr/logr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// source finds the Receiver of a path and reads its token.
type source interface {
	// find returns the Receiver whose status.webhookPath is path, or nil.
	find(ctx context.Context, path string) (*v1alpha1.Receiver, error)
	// token reads the Receiver's token from its Secret; errNoToken when
	// the Secret or its key is missing.
	token(ctx context.Context, r *v1alpha1.Receiver) ([]byte, error)
}

// asker asks for a reconcile of what a Receiver names and returns how many
// objects it asked.
type asker interface {
	// repositories, when not empty, are those a push names (pushed):
	// Components that read other Git repositories are not asked.
	ask(ctx context.Context, r *v1alpha1.Receiver, repositories []string) (int, error)
}

// errNoToken is the error of a Receiver whose Secret or token is missing.
var errNoToken = errors.New("no token")

// webhooks serves the Receivers' paths.
type webhooks struct {
	source  source
	asker   asker
	limits  *limits
	replays *replays
	now     func() time.Time
	log     logr.Logger
}

// ServeHTTP takes one webhook: bounded, verified, filtered by event, not
// acted on twice, and then asked for.
func (h *webhooks) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		answer(w, http.StatusMethodNotAllowed, "a webhook is a POST")
		return
	}
	if !h.limits.allowAny(h.now()) {
		answer(w, http.StatusTooManyRequests, "too many requests: try again later")
		return
	}
	r, token, ok := h.receiverOf(w, req)
	if !ok {
		return
	}
	body, ok := readBody(w, req)
	if !ok {
		return
	}
	log := h.log.WithValues("receiver", r.Namespace+"/"+r.Name, "type", r.Spec.Type)
	if err := verify(r.Spec.Type, token, req.Header, body); err != nil {
		log.Info("refused a request", "reason", err.Error())
		answer(w, http.StatusUnauthorized, "not verified")
		return
	}
	if event := eventOf(r.Spec.Type, req.Header); !wanted(r.Spec.Events, event) {
		answer(w, http.StatusOK, fmt.Sprintf("event %q is not one of the Receiver's events: nothing to do", event))
		return
	}
	h.act(w, req.Context(), log, r, deliveryKeys(r.Spec.Type, req.Header, body), pushed(r.Spec.Type, body))
}

// receiverOf finds the Receiver of the request's path and its token, and
// answers when there is none to act for: 404 for a path that is no
// Receiver's, at its current token; 503 for one suspended or without a
// token.
func (h *webhooks) receiverOf(w http.ResponseWriter, req *http.Request) (*v1alpha1.Receiver, []byte, bool) {
	ctx := req.Context()
	r, err := h.source.find(ctx, req.URL.Path)
	if err != nil && ctx.Err() != nil {
		return nil, nil, false // the sender went while an unknown path was looked up: nobody to answer
	}
	if err != nil {
		h.log.Error(err, "finding the Receiver of a path")
		answer(w, http.StatusInternalServerError, "the Receiver could not be read")
		return nil, nil, false
	}
	if r == nil {
		answer(w, http.StatusNotFound, "no Receiver has this path")
		return nil, nil, false
	}
	if r.Spec.Suspend {
		answer(w, http.StatusServiceUnavailable, "the Receiver is suspended")
		return nil, nil, false
	}
	token, err := h.source.token(ctx, r)
	if errors.Is(err, errNoToken) {
		answer(w, http.StatusServiceUnavailable, "the Receiver has no token")
		return nil, nil, false
	}
	if err != nil {
		h.log.Error(err, "reading a Receiver's token", "receiver", r.Namespace+"/"+r.Name)
		answer(w, http.StatusInternalServerError, "the Receiver's token could not be read")
		return nil, nil, false
	}
	if webhookPath(token, r.Name, r.Namespace) != req.URL.Path {
		// The token changed since the status was written: the old path
		// is gone with it.
		answer(w, http.StatusNotFound, "no Receiver has this path")
		return nil, nil, false
	}
	return r, token, true
}

// act asks for the reconcile of a verified delivery, once.
func (h *webhooks) act(w http.ResponseWriter, ctx context.Context, log logr.Logger, r *v1alpha1.Receiver, keys, repositories []string) {
	if !h.limits.allowReceiver(r.UID, h.now()) {
		answer(w, http.StatusTooManyRequests, "too many requests for this Receiver: try again later")
		return
	}
	for i, k := range keys {
		keys[i] = string(r.UID) + " " + k
	}
	if !h.replays.reserve(keys) {
		log.Info("ignored a delivery it handled before")
		answer(w, http.StatusOK, "this delivery was handled before: nothing to do")
		return
	}
	n, err := h.asker.ask(ctx, r, repositories)
	if err != nil {
		h.replays.release(keys)
		log.Error(err, "asking for a reconcile")
		answer(w, http.StatusInternalServerError, "asking for a reconcile failed; the operator's log says why")
		return
	}
	log.Info("asked for a reconcile", "objects", n)
	answer(w, http.StatusOK, fmt.Sprintf("asked %d objects for a reconcile", n))
}

// readBody reads the body, at most maxBodyBytes, and answers 413 past it.
func readBody(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	if req.ContentLength > maxBodyBytes {
		answer(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxBodyBytes))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		answer(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxBodyBytes))
		return nil, false
	case err != nil:
		answer(w, http.StatusBadRequest, "the body could not be read")
		return nil, false
	}
	return body, true
}

// answer writes a short plain-text answer.
func answer(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, text+"\n")
}
