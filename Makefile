# wavekit — `make demo` runs the main job, `make test` runs every test.
# Both build a local cluster (kube-apiserver, etcd, kube-controller-manager,
# kube-scheduler, kwok) from the Go module proxy on first use; see
# hack/control-plane.sh.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

export GOTOOLCHAIN := local

GO          ?= go
TOOLS       := $(GO) tool -modfile=hack/tools/go.mod
CONTROL_PLANE := bash hack/control-plane.sh
# Packages whose tests run with the race detector; RACE=0 turns it off.
RACE        ?= 1
TEST_FLAGS  ?= -count=1 -timeout=45m
GENERATED   := api pkg config/crd config/chart/crds config/agent-chart/crds

##@ Main jobs

.PHONY: demo
demo: ## Run the demo: a local control plane, the reference operator, a component applied and deleted in waves.
	@assets="$$($(CONTROL_PLANE))"; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) run ./cmd/wavekit demo

.PHONY: test
test: fmt-check vet check-generated postgres chromium strace git-tools cosign ## Check formatting, vet, check generated files, and run every suite against a real API server.
	@assets="$$($(CONTROL_PLANE))"; \
	race=""; if [[ "$(RACE)" == 1 ]]; then race="-race"; fi; \
	echo "KUBEBUILDER_ASSETS=$$assets"; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test $$race $(TEST_FLAGS) ./...

# The soak (test/robustness): DURATION of random operations and faults on
# a random SEED (printed; SEED=N replays its operations), MEMBERS member API
# servers, IDLE the window without writes after each convergence. A run
# that finds a violation keeps the replicas' logs and its recorded history
# in _output/soak/<namespace>-<seed>.
DURATION    ?= 10m
MEMBERS     ?= 1
IDLE        ?= 30s
# SOAK_TIMEOUT bounds the whole run: DURATION, the planted-bug specs, set-up.
SOAK_TIMEOUT ?= 2h

.PHONY: robustness
robustness: postgres ## Run the randomized soak with faults and its checker for DURATION (default 10m) on a random SEED, and the planted-bug specs.
	@assets="$$($(CONTROL_PLANE))"; \
	seed="$${SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"; \
	echo "soak: DURATION=$(DURATION) SEED=$$seed MEMBERS=$(MEMBERS) (replay: make robustness SEED=$$seed)"; \
	KUBEBUILDER_ASSETS="$$assets" SOAK_DURATION=$(DURATION) SOAK_SEED="$$seed" SOAK_MEMBERS=$(MEMBERS) SOAK_IDLE=$(IDLE) SOAK_KEEP="$(CURDIR)/_output/soak" \
	  $(GO) test -v -count=1 -timeout=$(SOAK_TIMEOUT) ./test/robustness -ginkgo.v -ginkgo.timeout=$(SOAK_TIMEOUT)

.PHONY: soak
soak: ## make robustness for DURATION=30m with two member API servers.
	@$(MAKE) --no-print-directory robustness DURATION=$(if $(filter command line,$(origin DURATION)),$(DURATION),30m) MEMBERS=$(if $(filter command line,$(origin MEMBERS)),$(MEMBERS),2)

# The recovery figures of docs/reliability.md: ROUNDS restarts of
# kube-apiserver (killed, then stopped gracefully) and ROUNDS stops of etcd
# for 10 s, each with and without load; one line per run of median, p99 and
# max of how long after the return a change made then was acted on.
ROUNDS ?= 20

.PHONY: recovery
recovery: ## Measure how long after kube-apiserver's return (killed, stopped) and etcd's a change is acted on, ROUNDS (20) times each, with and without load.
	@assets="$$($(CONTROL_PLANE))"; \
	for load in 1 0; do \
	  for stop in kill graceful; do \
	    focus="kube-apiserver's return"; if [[ "$$stop" == kill ]]; then focus="recovery after"; fi; \
	    KUBEBUILDER_ASSETS="$$assets" WAVEKIT_RECOVERY_ROUNDS=$(ROUNDS) WAVEKIT_RECOVERY_STOP=$$stop WAVEKIT_RECOVERY_LOAD=$$load \
	      $(GO) test -v -count=1 -timeout=60m ./test/reliability -ginkgo.v -ginkgo.focus="$$focus" | grep -E '^  recovery |FAIL' || exit 1; \
	  done; \
	done

.PHONY: postgres
postgres: ## Install PostgreSQL's server (Debian's postgresql package) for the tests, only when it is missing.
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  sudo=""; if [[ "$$(id -u)" != 0 ]]; then sudo="sudo"; fi; \
	  echo "installing Debian's postgresql package for the tests"; \
	  $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; \
	fi

.PHONY: chromium
chromium: ## Install Chromium (Debian's chromium package) for the status page's browser tests, only when /usr/bin/chromium is missing.
	@if [[ ! -x /usr/bin/chromium ]]; then \
	  sudo=""; if [[ "$$(id -u)" != 0 ]]; then sudo="sudo"; fi; \
	  echo "installing Debian's chromium package for the status page's browser tests"; \
	  $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

.PHONY: strace
strace: ## Install strace (Debian's strace package), with which the tests watch kube-apiserver's connections, only when it is missing.
	@if ! command -v strace >/dev/null 2>&1; then \
	  sudo=""; if [[ "$$(id -u)" != 0 ]]; then sudo="sudo"; fi; \
	  echo "installing Debian's strace package for the tests that watch kube-apiserver's connections"; \
	  $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y strace; \
	fi

.PHONY: cosign
cosign: ## Build cosign from the Go module proxy (hack/cosign.sh, cached) for the release tests, which verify what make dist signs with it.
	@bash hack/cosign.sh >/dev/null

.PHONY: git-tools
git-tools: ## Install git (with git-http-backend and git-upload-pack, which serve the Git sources' tests) and ssh-keygen (which signs their commits), only when missing.
	@if ! command -v git >/dev/null 2>&1 || [[ ! -x "$$(git --exec-path 2>/dev/null)/git-http-backend" ]] || ! command -v ssh-keygen >/dev/null 2>&1; then \
	  sudo=""; if [[ "$$(id -u)" != 0 ]]; then sudo="sudo"; fi; \
	  echo "installing Debian's git and openssh-client packages for the Git sources' tests"; \
	  $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y git openssh-client; \
	fi

##@ Development

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ {printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2} /^##@/ {printf "\n%s\n", substr($$0, 5)}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build every package.
	$(GO) build ./...

.PHONY: generate
generate: ## Generate deepcopy code (controller-gen).
	$(TOOLS) controller-gen object:headerFile=hack/boilerplate.go.txt paths=./api/... paths=./pkg/manifests/... paths=./pkg/component/...

.PHONY: manifests
manifests: ## Generate CRDs (controller-gen) into config/crd/bases, the operator chart and the agent chart (Components only).
	$(TOOLS) controller-gen crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	cp config/crd/bases/*.yaml config/chart/crds/
	cp config/crd/bases/wavekit.dev_components.yaml config/agent-chart/crds/

.PHONY: check-generated
check-generated: ## Regenerate code and CRDs and fail if that changed anything.
	@before="$$(find $(GENERATED) -name 'zz_generated*.go' -o -path 'config/*/crds/*.yaml' -o -path 'config/crd/*/*.yaml' | sort | xargs sha256sum)"; \
	$(MAKE) --no-print-directory generate manifests >/dev/null; \
	after="$$(find $(GENERATED) -name 'zz_generated*.go' -o -path 'config/*/crds/*.yaml' -o -path 'config/crd/*/*.yaml' | sort | xargs sha256sum)"; \
	if [[ "$$before" != "$$after" ]]; then \
	  echo "generated files were out of date and have been regenerated; review and commit them:"; \
	  diff <(echo "$$before") <(echo "$$after") || true; exit 1; \
	fi

.PHONY: fmt
fmt: ## Format the code.
	$(GO) fmt ./...

.PHONY: fmt-check
fmt-check: ## Fail if any Go file is not gofmt-formatted.
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [[ -n "$$unformatted" ]]; then echo "not gofmt-formatted (run make fmt):"; echo "$$unformatted"; exit 1; fi

.PHONY: vet
vet: ## Run go vet.
	$(GO) vet ./...

.PHONY: lint
lint: vet ## Run go vet and staticcheck.
	$(TOOLS) staticcheck ./...

.PHONY: bench
bench: postgres ## Run the benchmarks (figures go into docs/benchmarks.md).
	@assets="$$($(CONTROL_PLANE))"; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run='^$$' -bench=. -benchmem -benchtime=20x -count=1 ./pkg/generator/...; \
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./pkg/notify/; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run='^$$' -bench=. -benchtime=1x -count=1 -timeout=60m ./pkg/engine/... ./pkg/component/... ./pkg/dashboard/; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run='^$$' -bench=. -benchtime=1x -count=1 -timeout=60m ./test/bench/; \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run='^$$' -bench=. -benchtime=1x -count=1 -timeout=30m ./test/agent/
	@$(MAKE) --no-print-directory bench-git

.PHONY: bench-git
bench-git: git-tools ## Measure Git sources: looks and fetches per interval of 1 and 100 Components on one repository and push-to-Ready through a receiver (the operator binary, real Git servers), and the memory of a fetch of 30 000 files and of the largest objects a fetch takes.
	@assets="$$($(CONTROL_PLANE))"; \
	KUBEBUILDER_ASSETS="$$assets" WAVEKIT_GIT_BENCH=1 $(GO) test -count=1 -v -timeout=30m ./test/git -ginkgo.focus 'hundred Components|one Component|signed GitHub request|fifty Components of the chart' | grep -oE 'bench: .*|^(--- )?FAIL.*|^ok .*'; \
	$(GO) test -run='^$$' -bench='BenchmarkLargeRepository|BenchmarkLargeObjects' -benchtime=1x -count=1 ./pkg/fetch/git/

.PHONY: bench-scale
SCALE_OUT ?= $(CURDIR)/docs/benchmarks-scale.json
bench-scale: ## Run the operator at R = 1 000, 3 000 and 10 000 Components and 10 000 over 2 and 4 shards, with a shard move (about 2 h; SIZES=, SHARDS= to narrow it; SHARDED_ONLY=1 runs the sharded cases alone; SCALE_OUT=<file.json> writes elsewhere than docs/benchmarks-scale.json), then plot it beside the JSON.
	@assets="$$($(CONTROL_PLANE))"; \
	WAVEKIT_SCALE=1 WAVEKIT_SCALE_SIZES="$(SIZES)" WAVEKIT_SCALE_SHARDS="$(SHARDS)" WAVEKIT_SCALE_SHARDED_ONLY="$(SHARDED_ONLY)" WAVEKIT_SCALE_OUT="$(abspath $(SCALE_OUT))" \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -run='^$$' -bench='^BenchmarkScaleCost$$' -benchtime=1x -count=1 -timeout=4h ./test/bench/
	cd hack/benchplot && $(GO) run . -in "$(abspath $(SCALE_OUT))" -out "$(basename $(abspath $(SCALE_OUT))).png"

.PHONY: bench-peers
bench-peers: ## Run wavekit's operator against Flux helm-controller on local clusters (R=100; BENCH_LARGE=1: R=1000; BENCH_IDLE=60s: a shorter idle window).
	cd test/bench/peers && $(GO) run . -repo ../../.. -results results

.PHONY: control-plane
control-plane: ## Build kube-apiserver, kube-controller-manager, kube-scheduler, etcd and kwok (first run only) and print their directory.
	@$(CONTROL_PLANE)

##@ Images, charts and release

# VERSION is the git tag (v*) of HEAD, else a Go pseudo-version of HEAD
# (hack/version.sh); it is stamped into both binaries, tags both images and
# sets both charts' appVersion. Override it as make VERSION=v0.2.0 ....
ifeq ($(origin VERSION),undefined)
VERSION := $(shell bash hack/version.sh)
endif
# The chart's version: VERSION without its "v".
CHART_VERSION := $(VERSION:v%=%)
REVISION    ?= $(shell git rev-parse HEAD 2>/dev/null)
# Every time stamp in the image: the commit's time, so a commit gives one digest.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
LDFLAGS     := -s -w -X github.com/wavekit-dev/wavekit/internal/version.stamped=$(VERSION)
IMG         ?= ghcr.io/wavekit-dev/component-operator:$(VERSION)
# The agent's image beside IMG: IMG with wavekit-agent for component-operator
# (registry.example.com/team/wavekit-agent:v0.2.0 for IMG=registry.example.com/team/component-operator:v0.2.0).
AGENT_IMG   ?= $(subst component-operator,wavekit-agent,$(IMG))
DIST        ?= dist
CLI_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.PHONY: version
version: ## Print VERSION.
	@echo $(VERSION)

# make image builds both images: the operator's (IMG) and the agent's
# (AGENT_IMG, the wavekit CLI that wavekit agent run runs, for config/agent-chart).
.PHONY: image
image: operator-image agent-image ## Build both images (operator IMG, agent AGENT_IMG; linux/amd64, linux/arm64) without a container engine into DIST.

.PHONY: operator-image
operator-image: ## Build the operator image IMG (linux/amd64, linux/arm64) without a container engine into DIST.
	$(GO) run ./hack/image build -version $(VERSION) -revision '$(REVISION)' -created $(SOURCE_DATE_EPOCH) -image $(IMG) -out $(DIST)

.PHONY: agent-image
agent-image: ## Build the agent image AGENT_IMG (the wavekit CLI; linux/amd64, linux/arm64) without a container engine into DIST.
	@if [[ "$(AGENT_IMG)" == "$(IMG)" ]]; then echo "AGENT_IMG: IMG=$(IMG) names no component-operator to derive the agent image's name from; give AGENT_IMG=registry/repository:tag" >&2; exit 1; fi
	$(GO) run ./hack/image build -program agent -version $(VERSION) -revision '$(REVISION)' -created $(SOURCE_DATE_EPOCH) -image $(AGENT_IMG) -out $(DIST)

.PHONY: image-push
image-push: operator-image-push agent-image-push ## Build and push both images to IMG and AGENT_IMG (credentials of docker login).

.PHONY: operator-image-push
operator-image-push: operator-image ## Push the operator image to IMG=registry/repository:tag, with its signature and attestations if make dist signed it.
	$(GO) run ./hack/image push -archive $(DIST)/component-operator-$(VERSION).oci.tar -image $(IMG)$(if $(wildcard $(DIST)/component-operator-$(VERSION).referrers.json), -referrers $(DIST)/component-operator-$(VERSION).referrers.json)

.PHONY: agent-image-push
agent-image-push: agent-image ## Push the agent image to AGENT_IMG=registry/repository:tag, with its signature and attestations if make dist signed it.
	$(GO) run ./hack/image push -archive $(DIST)/wavekit-agent-$(VERSION).oci.tar -image $(AGENT_IMG)$(if $(wildcard $(DIST)/wavekit-agent-$(VERSION).referrers.json), -referrers $(DIST)/wavekit-agent-$(VERSION).referrers.json)

.PHONY: docker-build
docker-build: ## Build the image IMG with Docker (docker build), for those who have it.
	docker build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: docker-build-agent
docker-build-agent: ## Build the agent image AGENT_IMG (the Dockerfile's target agent: the wavekit CLI) with Docker.
	docker build --target agent --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(AGENT_IMG) .

.PHONY: chart-lint
chart-lint: ## Lint the operator's Helm chart (config/chart) and the agent's (config/agent-chart) with the helm CLI from go.mod.
	$(GO) tool helm lint --strict config/chart --set 'sources[0].name=example,sources[0].path=/opt/sources/example'
	$(GO) tool helm lint --strict config/agent-chart --set hub.namespace=fleet-example-0123abcd

.PHONY: chart-package
chart-package: ## Package the chart into DIST with version CHART_VERSION and appVersion VERSION (the image tag).
	@mkdir -p $(DIST)
	$(GO) tool helm package config/chart --version $(CHART_VERSION) --app-version $(VERSION) --destination $(DIST)
	$(GO) run ./hack/release chart -created $(SOURCE_DATE_EPOCH) $(DIST)/component-operator-$(CHART_VERSION).tgz

.PHONY: agent-chart-package
agent-chart-package: ## Package the agent's chart (config/agent-chart) into DIST with version CHART_VERSION and appVersion VERSION (the agent image's tag).
	@mkdir -p $(DIST)
	$(GO) tool helm package config/agent-chart --version $(CHART_VERSION) --app-version $(VERSION) --destination $(DIST)
	$(GO) run ./hack/release chart -created $(SOURCE_DATE_EPOCH) $(DIST)/wavekit-agent-$(CHART_VERSION).tgz

.PHONY: cli
cli: ## Build the wavekit CLI for every CLI_PLATFORMS into DIST, each with its SBOM (BINARY.cdx.json).
	@mkdir -p $(DIST)
	@for platform in $(CLI_PLATFORMS); do \
	  os=$${platform%/*}; arch=$${platform#*/}; out=$(DIST)/wavekit-$(VERSION)-$$os-$$arch; \
	  echo "$$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $$out ./cmd/wavekit || exit 1; \
	  $(GO) run ./hack/release sbom -created $(SOURCE_DATE_EPOCH) $$out || exit 1; \
	done

# RELEASE_URL is where a release's files are downloaded from (the krew manifest names it).
RELEASE_URL ?= https://github.com/wavekit-dev/wavekit/releases/download/$(VERSION)

.PHONY: krew
krew: cli ## Package the CLI for krew into DIST: kubectl-wavekit archives and kubectl-wavekit.krew.yaml (URIs under RELEASE_URL).
	$(GO) run ./hack/krew -dist $(DIST) -version $(VERSION) -base-url $(RELEASE_URL) -platforms '$(CLI_PLATFORMS)' -created $(SOURCE_DATE_EPOCH)

.PHONY: dist
# REPOSITORY and BUILDER are what the provenance names: the source's Git URL
# and what ran the build (CI gives its workflow's URL).
REPOSITORY  ?= https://github.com/wavekit-dev/wavekit
BUILDER     ?= https://wavekit.dev/builders/local
# SIGNING_KEY, a cosign private key file (make signing-key; its password in
# $$COSIGN_PASSWORD), makes dist sign what it writes. HELM_SIGNING_KEYRING
# and HELM_SIGNING_KEY (an OpenPGP secret keyring and a key's name in it;
# its passphrase in $$HELM_KEY_PASSPHRASE) make it write the charts' .prov files.
SIGNING_KEY          ?=
HELM_SIGNING_KEYRING ?=
HELM_SIGNING_KEY     ?=
# CHART_REGISTRY is where make chart-push pushes both charts.
CHART_REGISTRY       ?= oci://ghcr.io/wavekit-dev/charts

.PHONY: dist
dist: ## Make every release artifact into a fresh DIST: CLI binaries, krew archives and manifest, both images' archives, both charts, an SBOM of every binary, the provenance of all, SHA256SUMS.
	rm -rf $(DIST)
	$(MAKE) --no-print-directory krew image chart-package agent-chart-package
	$(if $(HELM_SIGNING_KEY),$(GO) run ./hack/release prov -keyring $(HELM_SIGNING_KEYRING) -key '$(HELM_SIGNING_KEY)' $(DIST)/component-operator-$(CHART_VERSION).tgz $(DIST)/wavekit-agent-$(CHART_VERSION).tgz)
	$(GO) run ./hack/release provenance -dist $(DIST) -target dist -version $(VERSION) -revision '$(REVISION)' -repository $(REPOSITORY) -builder $(BUILDER)
	cd $(DIST) && sha256sum $$(ls | grep -v '^SHA256SUMS$$') > SHA256SUMS
	$(if $(SIGNING_KEY),$(GO) run ./hack/release sign -key $(SIGNING_KEY) -dist $(DIST) -created $(SOURCE_DATE_EPOCH))
	@echo "$(DIST) holds VERSION $(VERSION); check it with: cd $(DIST) && sha256sum -c SHA256SUMS"

.PHONY: signing-key
signing-key: ## Make a cosign key pair for release signing: cosign.key (encrypted with $$COSIGN_PASSWORD) and cosign.pub.
	$(GO) run ./hack/release keygen -out .

.PHONY: chart-push
chart-push: ## Push both charts of DIST to CHART_REGISTRY (helm registry login first) and sign each with SIGNING_KEY, if given.
	@for chart in component-operator wavekit-agent; do \
	  out=$$($(GO) tool helm push $(DIST)/$$chart-$(CHART_VERSION).tgz $(CHART_REGISTRY) 2>&1) || { echo "$$out" >&2; exit 1; }; echo "$$out"; \
	  digest=$$(echo "$$out" | sed -n 's/^Digest: //p'); \
	  if [[ -n "$(SIGNING_KEY)" ]]; then \
	    $(GO) run ./hack/release sign-artifact -key $(SIGNING_KEY) -created $(SOURCE_DATE_EPOCH) $(CHART_REGISTRY)/$$chart@$$digest || exit 1; \
	  fi; \
	done

.PHONY: reproduce
reproduce: ## Make dist twice, the second time with an empty Go build cache, and compare every artifact's SHA-256 (slow: every binary is compiled twice).
	@first=$$(mktemp -d); second=$$(mktemp -d); cache=$$(mktemp -d); \
	$(MAKE) --no-print-directory dist DIST=$$first SIGNING_KEY= HELM_SIGNING_KEY= >/dev/null && \
	GOCACHE=$$cache $(MAKE) --no-print-directory dist DIST=$$second SIGNING_KEY= HELM_SIGNING_KEY= >/dev/null && \
	diff $$first/SHA256SUMS $$second/SHA256SUMS && \
	echo "reproduce: both builds of $(VERSION) give the same $$(wc -l < $$first/SHA256SUMS) artifacts"; \
	status=$$?; rm -rf $$first $$second $$cache; exit $$status

##@ Fuzzing

FUZZTIME    ?= 10m
# package:target pairs.
FUZZ_TARGETS := pkg/manifests:FuzzDecodeObjects pkg/manifests:FuzzParsePolicies \
	pkg/manifests:FuzzMergeValues pkg/engine:FuzzDigestStable pkg/generator/helm:FuzzDecodeOnce \
	pkg/engine/internal/jsonvalue:FuzzAppendIsMarshal

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME each (default 10m); crashes land in testdata/fuzz.
	@# -timeout=0: go test's default 10m timeout would end a 10m fuzz run as a failure.
	@for pair in $(FUZZ_TARGETS); do \
	  pkg=$${pair%%:*}; target=$${pair##*:}; \
	  echo "== $$target in $$pkg ($(FUZZTIME))"; \
	  $(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) -timeout=0 ./$$pkg || exit 1; \
	done
