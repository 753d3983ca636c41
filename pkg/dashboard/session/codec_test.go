package session_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/dashboard/session"
)

func TestSession(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "session")
}

type user struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups"`
}

var _ = Describe("Codec", func() {
	var codec *session.Codec

	BeforeEach(func() {
		var err error
		codec, err = session.NewCodec(session.RandomKey())
		Expect(err).NotTo(HaveOccurred())
	})

	It("opens what it sealed, for the same cookie name only", func() {
		sealed, err := codec.Seal("s", user{Name: "alice", Groups: []string{"ops"}}, time.Now().Add(time.Hour))
		Expect(err).NotTo(HaveOccurred())
		Expect(sealed).NotTo(ContainSubstring("alice"))
		var got user
		Expect(codec.Open("s", sealed, &got)).To(Succeed())
		Expect(got).To(Equal(user{Name: "alice", Groups: []string{"ops"}}))
		Expect(codec.Open("flow", sealed, &got)).To(MatchError(session.ErrInvalid))
	})

	It("refuses a changed cookie, one of another key, and an expired one", func() {
		sealed, err := codec.Seal("s", user{Name: "alice"}, time.Now().Add(time.Hour))
		Expect(err).NotTo(HaveOccurred())
		changed := []byte(sealed)
		changed[len(changed)/2] ^= 1
		var got user
		Expect(codec.Open("s", string(changed), &got)).To(MatchError(session.ErrInvalid))
		Expect(codec.Open("s", "not base64!", &got)).To(MatchError(session.ErrInvalid))
		other, err := session.NewCodec(session.RandomKey())
		Expect(err).NotTo(HaveOccurred())
		Expect(other.Open("s", sealed, &got)).To(MatchError(session.ErrInvalid))
		expired, err := codec.Seal("s", user{Name: "alice"}, time.Now().Add(-time.Second))
		Expect(err).NotTo(HaveOccurred())
		Expect(codec.Open("s", expired, &got)).To(MatchError(session.ErrExpired))
	})

	It("refuses a short key", func() {
		_, err := session.NewCodec([]byte("short"))
		Expect(err).To(MatchError(ContainSubstring("at least 32 bytes, this one has 5")))
	})

	It("gives each session its own CSRF token", func() {
		a, b := session.NewID(), session.NewID()
		Expect(a).NotTo(Equal(b))
		Expect(codec.CheckCSRF(a, codec.CSRFToken(a))).To(BeTrue())
		Expect(codec.CheckCSRF(b, codec.CSRFToken(a))).To(BeFalse())
		Expect(codec.CheckCSRF(a, "")).To(BeFalse())
	})
})
