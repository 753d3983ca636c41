package imagebuild_test

import (
	"archive/tar"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/imagebuild"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
)

// The build the specs make, as `make image` would with VERSION=v1.2.3-test.1.
const (
	testVersion   = "v1.2.3-test.1"
	testReference = "ghcr.io/wavekit-dev/component-operator:" + testVersion
)

var testMeta = imagebuild.Metadata{
	Version:  testVersion,
	Revision: "0123456789abcdef0123456789abcdef01234567",
	Created:  time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
}

var _ = Describe("the operator image", Ordered, func() {
	var result *imagebuild.Result

	// One build for every spec, for two platforms, of a stand-in that
	// answers --version as the operator does: the operator itself, with its
	// signature and SOPS libraries, takes over ten minutes a platform to
	// compile cold, which `make image` pays, not every test run.
	BeforeAll(func(ctx SpecContext) {
		var err error
		result, err = imagebuild.Make(ctx, imagebuild.Options{
			Package:   "./internal/imagebuild/testdata/standin",
			ModuleDir: moduleRoot(),
			Metadata:  testMeta,
			Reference: testReference,
			OutDir:    GinkgoT().TempDir(),
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(result.OCIArchive).To(HaveSuffix("component-operator-" + testVersion + ".oci.tar"))
	}, NodeTimeout(5*time.Minute))

	// archived is the index read back from the OCI archive.
	var archived v1.ImageIndex
	BeforeAll(func() {
		index, closeArchive, err := imagebuild.ReadOCIArchive(result.OCIArchive)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(closeArchive)
		archived = index
	})

	It("holds one image for linux/amd64 and one for linux/arm64", func() {
		index := archived
		Expect(index.Digest()).To(Equal(result.Digest))
		manifest, err := index.IndexManifest()
		Expect(err).NotTo(HaveOccurred())
		Expect(manifest.MediaType).To(BeEquivalentTo("application/vnd.oci.image.index.v1+json"))
		var platforms []string
		for _, m := range manifest.Manifests {
			platforms = append(platforms, m.Platform.String())
		}
		Expect(platforms).To(ConsistOf("linux/amd64", "linux/arm64"))
	})

	It("runs the operator from / as nonroot, labelled with source and version", func() {
		index := archived
		for _, platform := range imagebuild.Platforms {
			config, err := platformImage(index, platform).ConfigFile()
			Expect(err).NotTo(HaveOccurred())
			Expect(config.OS + "/" + config.Architecture).To(Equal(platform.String()))
			Expect(config.Config.User).To(Equal("65532:65532"))
			Expect(config.Config.Entrypoint).To(Equal([]string{"/component-operator"}))
			Expect(config.Config.WorkingDir).To(Equal("/"))
			Expect(config.Created.Time).To(BeTemporally("==", testMeta.Created))
			Expect(config.Config.Labels).To(Equal(map[string]string{
				"org.opencontainers.image.source":      "https://github.com/wavekit-dev/wavekit",
				"org.opencontainers.image.version":     testVersion,
				"org.opencontainers.image.revision":    testMeta.Revision,
				"org.opencontainers.image.title":       "component-operator",
				"org.opencontainers.image.description": "wavekit reference component operator",
				"org.opencontainers.image.licenses":    "Apache-2.0",
			}))
		}
	})

	It("holds the binary, the nonroot account and a writable /tmp, nothing else", func() {
		files := layerFiles(platformImage(archived, imagebuild.Platforms[0]))
		Expect(files).To(HaveLen(7))
		Expect(files).To(HaveKeyWithValue("component-operator", HaveField("Mode", int64(0o755))))
		Expect(files).To(HaveKeyWithValue("tmp/", HaveField("Mode", int64(0o1777))))
		Expect(files).To(HaveKeyWithValue("home/nonroot/", HaveField("Uid", 65532)))
		Expect(files).To(HaveKey("etc/passwd"))
		Expect(files).To(HaveKey("etc/group"))
		for _, header := range files {
			Expect(header.ModTime).To(BeTemporally("==", testMeta.Created))
		}
	})

	It("carries a binary that prints the stamped version", func() {
		if runtime.GOOS != "linux" {
			Skip("the image's binaries run on linux only")
		}
		binary := extract(platformImage(archived, v1.Platform{OS: "linux", Architecture: runtime.GOARCH}), "component-operator")
		out, err := exec.Command(binary, "--version").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(Equal("component-operator " + testVersion + "\n"))
	})

	It("names the image in index.json for containerd and podman", func() {
		var top v1.IndexManifest
		Expect(json.Unmarshal(archiveEntry(result.OCIArchive, "index.json"), &top)).To(Succeed())
		Expect(top.Manifests).To(HaveLen(1))
		Expect(top.Manifests[0].Digest).To(Equal(result.Digest))
		Expect(top.Manifests[0].Annotations).To(Equal(map[string]string{
			"io.containerd.image.name":          testReference,
			"org.opencontainers.image.ref.name": testReference,
		}))
		Expect(archiveEntry(result.OCIArchive, "oci-layout")).To(MatchJSON(`{"imageLayoutVersion": "1.0.0"}`))
	})

	It("writes a Docker archive a platform, tagged, with the same config", func() {
		index := archived
		tag, err := name.NewTag(testReference)
		Expect(err).NotTo(HaveOccurred())
		for _, platform := range imagebuild.Platforms {
			loaded, err := tarball.ImageFromPath(result.DockerArchives[platform.String()], &tag)
			Expect(err).NotTo(HaveOccurred(), platform.String())
			Expect(loaded.ConfigName()).To(Equal(must(platformImage(index, platform).ConfigName())))
		}
	})

	It("is reproducible: the same binary and metadata give the same digests and archive bytes", func() {
		index := archived
		platform := imagebuild.Platforms[0]
		original := platformImage(index, platform)
		data, err := os.ReadFile(extract(original, "component-operator"))
		Expect(err).NotTo(HaveOccurred())
		rebuilt, err := imagebuild.NewImage(data, platform, testMeta)
		Expect(err).NotTo(HaveOccurred())
		Expect(rebuilt.Digest()).To(Equal(must(original.Digest())))

		again := filepath.Join(GinkgoT().TempDir(), "again.oci.tar")
		tag, err := name.NewTag(testReference)
		Expect(err).NotTo(HaveOccurred())
		Expect(imagebuild.WriteOCIArchive(again, result.Index, tag, testMeta.Created)).To(Succeed())
		Expect(fileSum(again)).To(Equal(fileSum(result.OCIArchive)))
	})

	It("pushes to a registry with the login of docker's config.json, and pulls back the same index", func(ctx SpecContext) {
		registry, err := localregistry.Start(localregistry.Options{Username: "pusher", Password: "s3cret", Log: GinkgoWriter})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		ref := registry.Host + "/wavekit/component-operator:" + testVersion

		dockerConfig := GinkgoT().TempDir()
		GinkgoT().Setenv("DOCKER_CONFIG", dockerConfig)
		_, err = imagebuild.Push(ctx, archived, ref)
		Expect(err).To(MatchError(ContainSubstring("401 Unauthorized")), "without a login")

		writeDockerLogin(dockerConfig, registry.Host, "pusher", "s3cret")
		digest, err := imagebuild.Push(ctx, archived, ref)
		Expect(err).NotTo(HaveOccurred())
		Expect(digest).To(Equal(result.Digest))

		pulled, err := remote.Index(must(name.ParseReference(ref)), remote.WithContext(ctx),
			remote.WithAuth(&authn.Basic{Username: "pusher", Password: "s3cret"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(pulled.Digest()).To(Equal(result.Digest))
	}, SpecTimeout(2*time.Minute))
})

// The agent image comes from the same build as the operator's, with
// imagebuild.Agent; these specs check what differs.
var _ = Describe("the agent image", Ordered, func() {
	const agentReference = "ghcr.io/wavekit-dev/wavekit-agent:" + testVersion
	var result *imagebuild.Result
	var archived v1.ImageIndex

	// One build, for both platforms, of a stand-in that answers the image's
	// default command as the wavekit CLI does (the CLI compiles for minutes).
	BeforeAll(func(ctx SpecContext) {
		var err error
		result, err = imagebuild.Make(ctx, imagebuild.Options{
			Image:     imagebuild.Agent,
			Package:   "./internal/imagebuild/testdata/agentstandin",
			ModuleDir: moduleRoot(),
			Metadata:  testMeta,
			Reference: agentReference,
			OutDir:    GinkgoT().TempDir(),
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(result.OCIArchive).To(HaveSuffix("/wavekit-agent-" + testVersion + ".oci.tar"))
		Expect(result.DockerArchives).To(HaveKeyWithValue("linux/arm64", HaveSuffix("/wavekit-agent-"+testVersion+"-linux-arm64.docker.tar")))
		index, closeArchive, err := imagebuild.ReadOCIArchive(result.OCIArchive)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(closeArchive)
		archived = index
	}, NodeTimeout(5*time.Minute))

	It("is the wavekit CLI of ./cmd/wavekit", func() {
		Expect(imagebuild.Agent.Package).To(Equal("./cmd/wavekit"))
	})

	It("runs /wavekit agent run --help by default, from / as nonroot, labelled as the agent", func() {
		for _, platform := range imagebuild.Platforms {
			config, err := platformImage(archived, platform).ConfigFile()
			Expect(err).NotTo(HaveOccurred())
			Expect(config.OS + "/" + config.Architecture).To(Equal(platform.String()))
			Expect(config.Config.User).To(Equal("65532:65532"))
			Expect(config.Config.Entrypoint).To(Equal([]string{"/wavekit"}))
			Expect(config.Config.Cmd).To(Equal([]string{"agent", "run", "--help"}))
			Expect(config.Config.WorkingDir).To(Equal("/"))
			Expect(config.Config.Labels).To(Equal(map[string]string{
				"org.opencontainers.image.source":      "https://github.com/wavekit-dev/wavekit",
				"org.opencontainers.image.version":     testVersion,
				"org.opencontainers.image.revision":    testMeta.Revision,
				"org.opencontainers.image.title":       "wavekit-agent",
				"org.opencontainers.image.description": "wavekit pull-mode agent of a member cluster (wavekit agent run)",
				"org.opencontainers.image.licenses":    "Apache-2.0",
			}))
		}
	})

	It("holds the binary, the nonroot account, a writable /tmp and the CA bundle", func() {
		img := platformImage(archived, imagebuild.Platforms[0])
		files := layerFiles(img)
		Expect(files).To(HaveLen(10))
		Expect(files).To(HaveKeyWithValue("wavekit", HaveField("Mode", int64(0o755))))
		Expect(files).To(HaveKeyWithValue("tmp/", HaveField("Mode", int64(0o1777))))
		Expect(files).To(HaveKeyWithValue("home/nonroot/", HaveField("Uid", 65532)))
		Expect(files).To(HaveKey("etc/passwd"))
		Expect(files).To(HaveKey("etc/ssl/certs/"))

		data, err := os.ReadFile(extract(img, "etc/ssl/certs/ca-certificates.crt"))
		Expect(err).NotTo(HaveOccurred())
		pool := x509.NewCertPool()
		Expect(pool.AppendCertsFromPEM(data)).To(BeTrue())
		var roots int
		for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
			cert, err := x509.ParseCertificate(block.Bytes)
			Expect(err).NotTo(HaveOccurred())
			Expect(cert.IsCA).To(BeTrue(), cert.Subject.String())
			roots++
		}
		Expect(roots).To(BeNumerically(">", 100), "the Mozilla roots, as distroless carries them")
	})

	It("carries a binary that answers the image's default command", func() {
		if runtime.GOOS != "linux" {
			Skip("the image's binaries run on linux only")
		}
		img := platformImage(archived, v1.Platform{OS: "linux", Architecture: runtime.GOARCH})
		config, err := img.ConfigFile()
		Expect(err).NotTo(HaveOccurred())
		binary := extract(img, "wavekit")
		out, err := exec.Command(binary, config.Config.Cmd...).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("wavekit agent run [flags]"))
		out, err = exec.Command(binary, "version").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(Equal("wavekit " + testVersion + "\n"))
	})

	It("names the image in index.json for containerd and podman", func() {
		var top v1.IndexManifest
		Expect(json.Unmarshal(archiveEntry(result.OCIArchive, "index.json"), &top)).To(Succeed())
		Expect(top.Manifests).To(HaveLen(1))
		Expect(top.Manifests[0].Annotations).To(HaveKeyWithValue("io.containerd.image.name", agentReference))
	})
})

var _ = Describe("the Dockerfile", func() {
	It("builds the image the way imagebuild does: user, entrypoint, build flags", func() {
		data, err := os.ReadFile(filepath.Join(moduleRoot(), "Dockerfile"))
		Expect(err).NotTo(HaveOccurred())
		dockerfile := string(data)
		entrypoint, err := json.Marshal(imagebuild.Entrypoint)
		Expect(err).NotTo(HaveOccurred())
		Expect(dockerfile).To(ContainSubstring("\nUSER " + imagebuild.User + "\n"))
		Expect(dockerfile).To(ContainSubstring("\nENTRYPOINT " + string(entrypoint)))
		Expect(dockerfile).To(ContainSubstring("\nWORKDIR " + imagebuild.WorkingDir + "\n"))
		Expect(dockerfile).To(ContainSubstring("COPY --from=builder /out/component-operator " + imagebuild.Binary + "\n"))
		Expect(dockerfile).To(ContainSubstring("CGO_ENABLED=0"))
		Expect(dockerfile).To(ContainSubstring(fmt.Sprintf(`go build -trimpath -ldflags=%q`, imagebuild.LDFlags("${VERSION}"))))
		Expect(dockerfile).To(ContainSubstring(" " + imagebuild.Package + "\n"))
		Expect(imagebuild.BuildFlags("${VERSION}")).To(Equal([]string{"-trimpath", "-ldflags", imagebuild.LDFlags("${VERSION}")}))
		for label := range testMeta.Labels() {
			Expect(dockerfile).To(ContainSubstring(label+"="), "the Dockerfile sets every label of the image")
		}
	})

	It("builds the agent image, its target agent, the way imagebuild.Agent does", func() {
		data, err := os.ReadFile(filepath.Join(moduleRoot(), "Dockerfile"))
		Expect(err).NotTo(HaveOccurred())
		dockerfile := string(data)
		stage := regexp.MustCompile(`(?s)\nFROM gcr\.io/distroless/static:nonroot AS agent\n(.*?)\n\n`).FindStringSubmatch(dockerfile)
		Expect(stage).NotTo(BeNil(), "the Dockerfile has a stage agent on distroless' static:nonroot")
		agent := imagebuild.Agent
		entrypoint, err := json.Marshal([]string{agent.Binary})
		Expect(err).NotTo(HaveOccurred())
		Expect(stage[1]).To(ContainSubstring("\nUSER " + imagebuild.User + "\n"))
		Expect(stage[1]).To(ContainSubstring("\nWORKDIR " + imagebuild.WorkingDir + "\n"))
		Expect(stage[1]).To(ContainSubstring("\nENTRYPOINT " + string(entrypoint) + "\n"))
		Expect(stage[1]).To(ContainSubstring("COPY --from=agent-builder /out/wavekit " + agent.Binary + "\n"))
		cmd := regexp.MustCompile(`\nCMD (\[.*\])`).FindStringSubmatch(stage[1])
		Expect(cmd).NotTo(BeNil())
		var args []string
		Expect(json.Unmarshal([]byte(cmd[1]), &args)).To(Succeed())
		Expect(args).To(Equal(agent.Cmd))
		Expect(stage[1]).To(ContainSubstring(fmt.Sprintf("org.opencontainers.image.title=%q", agent.Title)))
		Expect(stage[1]).To(ContainSubstring(fmt.Sprintf("org.opencontainers.image.description=%q", agent.Description)))
		for label := range agent.Labels(testMeta) {
			Expect(stage[1]).To(ContainSubstring(label+"="), "the stage sets every label of the image")
		}
		Expect(dockerfile).To(ContainSubstring("-o /out/wavekit " + agent.Package + "\n"))
	})
})

// moduleRoot is the root of the wavekit module.
func moduleRoot() string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	Expect(filepath.Join(root, "go.mod")).To(BeAnExistingFile())
	return root
}

// platformImage is the image of platform in index.
func platformImage(index v1.ImageIndex, platform v1.Platform) v1.Image {
	manifest, err := index.IndexManifest()
	Expect(err).NotTo(HaveOccurred())
	for _, m := range manifest.Manifests {
		if m.Platform != nil && m.Platform.Equals(platform) {
			img, err := index.Image(m.Digest)
			Expect(err).NotTo(HaveOccurred())
			return img
		}
	}
	Fail("no image for " + platform.String())
	return nil
}

// layerFiles are the tar headers of img's files, by name.
func layerFiles(img v1.Image) map[string]*tar.Header {
	files := map[string]*tar.Header{}
	eachFile(img, func(header *tar.Header, _ io.Reader) { files[header.Name] = header })
	return files
}

// extract writes the file path of img to a temporary file and returns its
// path, executable.
func extract(img v1.Image, path string) string {
	out := filepath.Join(GinkgoT().TempDir(), filepath.Base(path))
	found := false
	eachFile(img, func(header *tar.Header, r io.Reader) {
		if header.Name != path {
			return
		}
		data, err := io.ReadAll(r)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(out, data, 0o755)).To(Succeed())
		found = true
	})
	Expect(found).To(BeTrue(), "%s in the image", path)
	return out
}

// eachFile calls f with every entry of img's one layer.
func eachFile(img v1.Image, f func(*tar.Header, io.Reader)) {
	layers, err := img.Layers()
	Expect(err).NotTo(HaveOccurred())
	Expect(layers).To(HaveLen(1))
	rc, err := layers[0].Uncompressed()
	Expect(err).NotTo(HaveOccurred())
	defer rc.Close()
	r := tar.NewReader(rc)
	for {
		header, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		Expect(err).NotTo(HaveOccurred())
		f(header, r)
	}
}

// archiveEntry is the content of the file name in the tar at path.
func archiveEntry(path, name string) []byte {
	in, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer in.Close()
	r := tar.NewReader(in)
	for {
		header, err := r.Next()
		Expect(err).NotTo(HaveOccurred(), "%s in %s", name, path)
		if header.Name == name {
			data, err := io.ReadAll(r)
			Expect(err).NotTo(HaveOccurred())
			return data
		}
	}
}

// fileSum is the SHA-256 of the file at path.
func fileSum(path string) [32]byte {
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return sha256.Sum256(data)
}

// writeDockerLogin writes a docker config.json with a login for host to dir,
// as docker login does without a credential helper.
func writeDockerLogin(dir, host, username, password string) {
	auth := base64.StdEncoding.EncodeToString([]byte(username + ":" + password))
	data, err := json.Marshal(map[string]any{"auths": map[string]any{host: map[string]string{"auth": auth}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600)).To(Succeed())
}

func must[T any](v T, err error) T {
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return v
}
