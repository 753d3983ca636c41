package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	helmprov "helm.sh/helm/v3/pkg/provenance"

	"github.com/wavekit-dev/wavekit/internal/imagebuild"
	"github.com/wavekit-dev/wavekit/internal/release"
)

// keygen writes a cosign key pair: cosign.key, encrypted with
// $COSIGN_PASSWORD, and cosign.pub.
func keygen(args []string) error {
	flags := flag.NewFlagSet("keygen", flag.ContinueOnError)
	out := flags.String("out", ".", "the directory to write cosign.key and cosign.pub to")
	if err := flags.Parse(args); err != nil {
		return err
	}
	private, public, err := release.GenerateKey([]byte(os.Getenv("COSIGN_PASSWORD")))
	if err != nil {
		return err
	}
	keyFile := filepath.Join(*out, "cosign.key")
	if _, err := os.Stat(keyFile); err == nil {
		return fmt.Errorf("keygen: %s exists; remove it first", keyFile)
	}
	if err := os.WriteFile(keyFile, private, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "cosign.pub"), public, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (encrypted with $COSIGN_PASSWORD) and %s\n", keyFile, filepath.Join(*out, "cosign.pub"))
	return nil
}

// loadKey reads a cosign private key file, opened with $COSIGN_PASSWORD.
func loadKey(file string) (*release.Key, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	key, err := release.LoadKey(data, []byte(os.Getenv("COSIGN_PASSWORD")))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return key, nil
}

// signDist signs what `make dist` wrote: SHA256SUMS (a blob signature),
// the provenance (a DSSE attestation), and each image (its signature and
// attestations, to be attached when it is pushed).
func signDist(args []string) error {
	flags := flag.NewFlagSet("sign", flag.ContinueOnError)
	keyFile := flags.String("key", "", "the cosign private key (cosign.key; password in $COSIGN_PASSWORD)")
	dist := flags.String("dist", "dist", "the directory of the artifacts")
	created := flags.Int64("created", 0, "seconds since 1970 (SOURCE_DATE_EPOCH), the time of the attached manifests")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *keyFile == "" {
		return errors.New("sign: -key is required")
	}
	key, err := loadKey(*keyFile)
	if err != nil {
		return err
	}
	if err := signBlob(key, filepath.Join(*dist, "SHA256SUMS"), filepath.Join(*dist, "SHA256SUMS.sigstore.json")); err != nil {
		return err
	}
	statement, err := os.ReadFile(filepath.Join(*dist, "provenance.intoto.json"))
	if err != nil {
		return err
	}
	bundle, err := release.Attest(key, statement)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*dist, "provenance.sigstore.json"), bundle, 0o644); err != nil {
		return err
	}
	archives, err := filepath.Glob(filepath.Join(*dist, "*.oci.tar"))
	if err != nil {
		return err
	}
	for _, archive := range archives {
		if err := signImage(key, archive, statement, time.Unix(*created, 0).UTC()); err != nil {
			return err
		}
	}
	return nil
}

// signBlob writes the Sigstore bundle of file's signature to out.
func signBlob(key *release.Key, file, out string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	bundle, err := release.SignBlob(key, data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return os.WriteFile(out, bundle, 0o644)
}

// signImage writes <archive stem>.referrers.json: the image's signature,
// an SBOM attestation of each platform's binary and the provenance, each
// stating the image index's digest.
func signImage(key *release.Key, archive string, provenanceStatement []byte, created time.Time) error {
	imageName, err := imagebuild.ReadOCIArchiveName(archive)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(imageName)
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	repository := tag.Context().Name()
	index, closeArchive, err := imagebuild.ReadOCIArchive(archive)
	if err != nil {
		return err
	}
	defer closeArchive()
	digest, err := index.Digest()
	if err != nil {
		return err
	}
	raw, err := index.RawManifest()
	if err != nil {
		return err
	}
	mediaType, err := index.MediaType()
	if err != nil {
		return err
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		return err
	}
	stem := strings.TrimSuffix(archive, ".oci.tar")
	refs := release.Referrers{Image: imageName, Created: created,
		Subject: release.Descriptor{MediaType: string(mediaType), Digest: digest.String(), Size: int64(len(raw))}}
	imageSubject := release.Subject{Name: repository, SHA256: digest.Hex}
	all := []release.Subject{imageSubject}
	attest := func(subjects []release.Subject, predicateType string, predicate []byte) error {
		statement, err := release.Statement(subjects, predicateType, predicate)
		if err != nil {
			return err
		}
		bundle, err := release.Attest(key, statement)
		if err != nil {
			return err
		}
		refs.Bundles = append(refs.Bundles, release.Attached{PredicateType: predicateType, Bundle: bundle})
		return nil
	}
	if err := attest(all, release.SignaturePredicateType, []byte("{}")); err != nil {
		return err
	}
	if refs.Tag, err = release.SignTag(key, repository, digest.String()); err != nil {
		return err
	}
	for _, m := range manifest.Manifests {
		if m.Platform == nil {
			continue
		}
		platform := release.Subject{Name: repository, SHA256: m.Digest.Hex}
		all = append(all, platform)
		sbom, err := os.ReadFile(fmt.Sprintf("%s-%s-%s.cdx.json", stem, m.Platform.OS, m.Platform.Architecture))
		if err != nil {
			return fmt.Errorf("the SBOM of %s on %s: %w", imageName, m.Platform, err)
		}
		if err := attest([]release.Subject{imageSubject, platform}, release.SBOMPredicateType, sbom); err != nil {
			return err
		}
	}
	predicate, err := release.Predicate(provenanceStatement)
	if err != nil {
		return err
	}
	if err := attest(all, release.ProvenancePredicateType, predicate); err != nil {
		return err
	}
	return release.WriteReferrers(refs, stem+".referrers.json")
}

// prov writes <chart>.tgz.prov of each chart archive, signed with an
// OpenPGP key of a keyring, as `helm package --sign` does.
func prov(args []string) error {
	flags := flag.NewFlagSet("prov", flag.ContinueOnError)
	keyring := flags.String("keyring", "", "the OpenPGP secret keyring (gpg --export-secret-keys)")
	keyName := flags.String("key", "", "the name (or email) of the key in the keyring")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *keyring == "" || *keyName == "" {
		return errors.New("prov: -keyring and -key are required")
	}
	signer, err := helmprov.NewFromKeyring(*keyring, *keyName)
	if err != nil {
		return fmt.Errorf("prov: %s: %w", *keyring, err)
	}
	if passphrase := os.Getenv("HELM_KEY_PASSPHRASE"); passphrase != "" {
		if err := signer.DecryptKey(func(string) ([]byte, error) { return []byte(passphrase), nil }); err != nil {
			return fmt.Errorf("prov: opening key %s: %w", *keyName, err)
		}
	}
	for _, chart := range flags.Args() {
		signed, err := signer.ClearSign(chart)
		if err != nil {
			return fmt.Errorf("prov: signing %s: %w", chart, err)
		}
		if err := os.WriteFile(chart+".prov", []byte(signed), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// signArtifact signs a manifest of a registry (the OCI chart after helm
// push) and attaches the signature to it, as `cosign sign --key` does.
func signArtifact(args []string) error {
	flags := flag.NewFlagSet("sign-artifact", flag.ContinueOnError)
	keyFile := flags.String("key", "", "the cosign private key (cosign.key; password in $COSIGN_PASSWORD)")
	created := flags.Int64("created", 0, "seconds since 1970 (SOURCE_DATE_EPOCH), the time of the attached manifest")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *keyFile == "" || flags.NArg() != 1 {
		return errors.New("sign-artifact: -key and one REGISTRY/REPOSITORY@sha256:HEX (or :TAG) are required")
	}
	key, err := loadKey(*keyFile)
	if err != nil {
		return err
	}
	ctx := context.Background()
	ref, desc, err := imagebuild.Describe(ctx, strings.TrimPrefix(flags.Arg(0), "oci://"))
	if err != nil {
		return err
	}
	statement, err := release.Statement([]release.Subject{{Name: ref.Context().Name(), SHA256: desc.Digest.Hex}}, release.SignaturePredicateType, []byte("{}"))
	if err != nil {
		return err
	}
	bundle, err := release.Attest(key, statement)
	if err != nil {
		return err
	}
	refs := release.Referrers{Image: ref.String(), Created: time.Unix(*created, 0).UTC(),
		Subject: release.Descriptor{MediaType: string(desc.MediaType), Digest: desc.Digest.String(), Size: desc.Size},
		Bundles: []release.Attached{{PredicateType: release.SignaturePredicateType, Bundle: bundle}}}
	if refs.Tag, err = release.SignTag(key, ref.Context().Name(), desc.Digest.String()); err != nil {
		return err
	}
	return attach(ctx, ref.Context().Name(), refs)
}

// attach pushes the referrers of refs to repository.
func attach(ctx context.Context, repository string, refs release.Referrers) error {
	digests, err := imagebuild.AttachReferrers(ctx, repository, refs)
	for i, d := range digests {
		fmt.Printf("attached %s to %s@%s (%s)\n", d, repository, refs.Subject.Digest, refs.Bundles[i].PredicateType)
	}
	if err == nil && refs.Tag != nil {
		fmt.Printf("pushed the signature in tag form, %s:%s.sig\n", repository, strings.Replace(refs.Subject.Digest, ":", "-", 1))
	}
	return err
}
