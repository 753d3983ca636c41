package gitserver

import (
	"bytes"
	"crypto/ed25519"
	"encoding/pem"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"

	gliderssh "github.com/gliderlabs/ssh"
	"golang.org/x/crypto/ssh"
)

// startSSH serves git-upload-pack over SSH on a loopback port, with a new
// host key, to the holder of a new client key.
func (s *Server) startSSH() error {
	_, host, err := newEd25519()
	if err != nil {
		return err
	}
	client, clientSigner, err := newEd25519()
	if err != nil {
		return err
	}
	s.hostKey, s.clientKey = host, client
	authorized := clientSigner.PublicKey().Marshal()
	s.ssh = &gliderssh.Server{
		Handler: s.uploadPack,
		PublicKeyHandler: func(_ gliderssh.Context, key gliderssh.PublicKey) bool {
			return bytes.Equal(key.Marshal(), authorized)
		},
	}
	s.ssh.AddHostKey(host)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.sshL = l
	go func() { _ = s.ssh.Serve(l) }()
	return nil
}

// uploadPack runs git-upload-pack for the repository the session names;
// nothing else (no push, no shell).
func (s *Server) uploadPack(sess gliderssh.Session) {
	name, arg, _ := strings.Cut(sess.RawCommand(), " ")
	repo := strings.Trim(arg, "'\"")
	clean := filepath.Clean("/" + repo)
	if name != "git-upload-pack" || !strings.HasSuffix(clean, ".git") {
		fmt.Fprintf(sess.Stderr(), "only git-upload-pack of a repository is served\n")
		_ = sess.Exit(1)
		return
	}
	s.count(strings.TrimSuffix(strings.TrimPrefix(clean, "/"), ".git"), func(c *Counts) { c.SSHSessions++ })
	cmd := exec.Command("git", "upload-pack", filepath.Join(s.Root, clean))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sess, sess, sess.Stderr()
	code := 0
	if err := cmd.Run(); err != nil {
		code = 1
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		}
	}
	_ = sess.Exit(code)
}

// KnownHosts is a known_hosts line that trusts the server's host key.
func (s *Server) KnownHosts() []byte {
	return []byte(knownHostsLine(s.sshL.Addr().String(), s.hostKey.PublicKey()))
}

// OtherKnownHosts trusts another key for the server's address: a host key
// mismatch.
func (s *Server) OtherKnownHosts() ([]byte, error) {
	_, other, err := newEd25519()
	if err != nil {
		return nil, err
	}
	return []byte(knownHostsLine(s.sshL.Addr().String(), other.PublicKey())), nil
}

// HostKeyFingerprint is the SHA256 fingerprint of the server's host key.
func (s *Server) HostKeyFingerprint() string { return ssh.FingerprintSHA256(s.hostKey.PublicKey()) }

func knownHostsLine(addr string, key ssh.PublicKey) string {
	host, port, _ := net.SplitHostPort(addr)
	return fmt.Sprintf("[%s]:%s %s", host, port, ssh.MarshalAuthorizedKey(key))
}

// ClientKey is the private key (OpenSSH PEM) the SSH server accepts.
func (s *Server) ClientKey() ([]byte, error) {
	block, err := ssh.MarshalPrivateKey(ed25519.PrivateKey(s.clientKey), "")
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(block), nil
}
