// Package session keeps small values in browser cookies that only the
// page can read or make: a signed-in user, or the state of a sign-in under
// way.
//
// # Sealing
//
// A Codec seals a value with AES-256-GCM under a key derived from the
// page's session key: the cookie holds a random nonce and the ciphertext,
// and the cookie's name is the additional data, so a value sealed for one
// cookie does not open as another. The expiry is sealed with the value:
// a cookie whose browser kept it past its time, or whose value was
// changed, does not open (ErrExpired, ErrInvalid).
//
// # CSRF tokens
//
// CSRFToken derives the token a page's forms carry from the session's
// random id with an HMAC under another key derived from the same session
// key; Codec.CheckCSRF compares in constant time. A forged form from
// another site cannot know it.
//
// Every replica of an operator must be given the same key for sessions to
// survive a restart and to be valid on each of them.
package session
