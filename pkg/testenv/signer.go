package testenv

import (
	"errors"
	"fmt"
	"os"

	"github.com/wavekit-dev/wavekit/pkg/testenv/clusterrun"
)

// StartSigner makes a started cluster of kube-apiserver and etcd alone
// (APIServerOnly) sign client certificates: it starts
// kube-controller-manager with only its CertificateSigningRequest signer, so
// that an approved request of the signer kubernetes.io/kube-apiserver-client
// gets a certificate the API server trusts. A whole cluster's
// kube-controller-manager signs them already; Stop stops the signer.
func (e *Environment) StartSigner() error {
	if !e.APIServerOnly {
		return nil
	}
	if e.clientCA == nil || e.Config == nil {
		return errors.New("starting a signer: the cluster has not started, or its API server has a client authentication of its own")
	}
	if e.parts != nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "wavekit-testenv-")
	if err != nil {
		return fmt.Errorf("creating the directory of the signer's logs: %w", err)
	}
	e.logDir = dir
	files, err := e.writeFiles(e.Config)
	if err != nil {
		return err
	}
	e.parts, err = clusterrun.StartParts(e.BinaryAssetsDirectory, dir, []clusterrun.Part{clusterrun.SignerPart(files)}, clusterrun.StartOptions{})
	if err != nil {
		return fmt.Errorf("starting the signer (logs in %s): %w", dir, err)
	}
	return nil
}
