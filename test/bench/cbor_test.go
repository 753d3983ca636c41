package bench_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/features"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// BenchmarkCBOR measures what the API server's encodings change in the
// floor of an apply: KEP-4222's CBOR (issue 69) and protobuf (issue 90). A
// bare client applies N ConfigMaps server-side (force, 8 workers, the
// ConfigMaps of rawSSA8), then watches them (a watch that sends the initial
// events, as an informer starts), once with each encoding, cborRounds times
// each, in turn. JSON and CBOR rounds use a dynamic client (unstructured
// objects, as the engine reads them); the protobuf round a typed clientset
// that accepts protobuf answers (the apply's body stays an apply patch,
// which the API takes as JSON or YAML only), and its watch converts each
// typed ConfigMap to unstructured, as a typed cache behind the engine's
// unstructured reads would. It reports the medians of each phase's wall
// time, the CPU of this process (the client's), the CPU of kube-apiserver
// in that time, and the body bytes sent and received, and logs the
// Content-Types on the wire, by which a round shows what was negotiated
// (or that the server refused CBOR with a 415 and client-go fell back to
// JSON).
//
// The API server is a kube-apiserver and etcd of its own, with the gate
// CBORServingAndStorage on. The client-side gates ClientsAllowCBOR and
// ClientsPreferCBOR are read through client-go's features.FeatureGates(),
// which KUBE_FEATURE_* environment variables set once for the whole
// process; this benchmark puts cborGates in its place instead, which
// answers them per round, so that both encodings are measured in the same
// process. WAVEKIT_BENCH_CBOR_OBJECTS (default 500) is N.
func BenchmarkCBOR(b *testing.B) {
	n := envInts("WAVEKIT_BENCH_CBOR_OBJECTS", []int{500})[0]
	e := startCBORServer(b)
	b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
		for range b.N {
			cborVsJSON(b, e, n)
		}
	})
}

// cborRounds is how many times BenchmarkCBOR measures each encoding.
const cborRounds = 5

// startCBORServer starts a bare control plane (kube-apiserver and etcd)
// whose API server serves CBOR, until the benchmark ends.
func startCBORServer(b *testing.B) *testcluster.Env {
	s := scheme()
	environment := &testenv.Environment{APIServerOnly: true, Environment: envtest.Environment{Scheme: s, ControlPlaneStartTimeout: time.Minute}}
	environment.ControlPlane.GetAPIServer().Configure().Append("feature-gates", "CBORServingAndStorage=true")
	cfg, err := environment.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := environment.Stop(); err != nil {
			b.Error(err)
		}
	})
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		b.Fatal(err)
	}
	return &testcluster.Env{Config: cfg, Client: c, Scheme: s}
}

// encoding is what a round of BenchmarkCBOR has client-go speak.
type encoding int

const (
	asConfigured encoding = iota // what the process's own gates say
	asJSON
	asCBOR
	asProtobuf // a typed clientset's answers and watch events
)

func (e encoding) String() string { return [...]string{"default", "JSON", "CBOR", "protobuf"}[e] }

// cborGates are client-go's feature gates with ClientsAllowCBOR and
// ClientsPreferCBOR answered by the encoding of the round: the same reads
// that KUBE_FEATURE_ClientsAllowCBOR=true and
// KUBE_FEATURE_ClientsPreferCBOR=true answer for a whole process. Out of
// BenchmarkCBOR's rounds, every gate is the environment's.
type cborGates struct {
	base features.Gates
	mode atomic.Int32
}

func (g *cborGates) Enabled(key features.Feature) bool {
	if key == features.ClientsAllowCBOR || key == features.ClientsPreferCBOR {
		switch encoding(g.mode.Load()) {
		case asJSON:
			return false
		case asCBOR:
			return true
		}
	}
	return g.base.Enabled(key)
}

// clientGates is installed before anything reads the gates (a package
// variable's initialisation, before TestMain), as client-go asks of a
// replacement.
var clientGates = func() *cborGates {
	g := &cborGates{base: features.FeatureGates()}
	features.ReplaceFeatureGates(g)
	return g
}()

// wirePhase is what one phase of a round (the apply or the watch) cost.
type wirePhase struct {
	// cpu is this process's; server kube-apiserver's in the same time.
	wall, cpu, server time.Duration
	// out and in are the body bytes sent and received (in as decoded,
	// wireIn as they came, gzipped or not).
	out, in, wireIn int64
	// wire counts the exchanges by method, request Content-Type, status and
	// response Content-Type.
	wire map[string]int
}

// cborRound is the apply and the watch of one round.
type cborRound struct{ apply, watch wirePhase }

// cborVsJSON measures a warm-up round of each encoding, then cborRounds of
// each, alternating, and reports the medians.
func cborVsJSON(b *testing.B, e *testcluster.Env, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The first round of each encoding sets up what the others find ready
	// (the connections, the API server's caches of ConfigMaps).
	encodings := []encoding{asJSON, asCBOR, asProtobuf}
	for _, enc := range encodings {
		applyAndWatch(b, ctx, e, enc, min(n, 20))
	}
	rounds := map[encoding][]cborRound{}
	for range cborRounds {
		for _, enc := range encodings {
			rounds[enc] = append(rounds[enc], applyAndWatch(b, ctx, e, enc, n))
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\nN = %d, medians of %d rounds each, load average %.1f\n", n, cborRounds, loadAverage())
	table.WriteString("| encoding | apply: time | client CPU | server CPU | bytes out / in (on the wire) | watch: time | client CPU | server CPU | bytes in (on the wire) |\n")
	for _, enc := range encodings {
		apply := medianPhase(rounds[enc], func(r cborRound) wirePhase { return r.apply })
		watched := medianPhase(rounds[enc], func(r cborRound) wirePhase { return r.watch })
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %d / %d (%d) | %s | %s | %s | %d (%d) |\n", enc,
			apply.wall.Round(time.Millisecond), apply.cpu.Round(time.Millisecond), apply.server.Round(time.Millisecond), apply.out, apply.in, apply.wireIn,
			watched.wall.Round(time.Millisecond), watched.cpu.Round(time.Millisecond), watched.server.Round(time.Millisecond), watched.in, watched.wireIn)
		name := strings.ToLower(enc.String())
		b.ReportMetric(float64(apply.wall.Milliseconds()), name+"-apply-ms")
		b.ReportMetric(float64(apply.cpu.Milliseconds()), name+"-apply-cpu-ms")
		b.ReportMetric(float64(apply.server.Milliseconds()), name+"-apply-server-cpu-ms")
		b.ReportMetric(float64(watched.server.Milliseconds()), name+"-watch-server-cpu-ms")
		b.ReportMetric(float64(apply.out)/float64(n), name+"-apply-B-out/obj")
		b.ReportMetric(float64(apply.in)/float64(n), name+"-apply-B-in/obj")
		b.ReportMetric(float64(watched.cpu.Milliseconds()), name+"-watch-cpu-ms")
		b.ReportMetric(float64(watched.in)/float64(n), name+"-watch-B-in/obj")
		b.ReportMetric(float64(watched.wireIn)/float64(n), name+"-watch-wire-B-in/obj")
		last := rounds[enc][len(rounds[enc])-1]
		fmt.Fprintf(&table, "%s on the wire (last round): apply %s; watch %s\n", enc, wireString(last.apply.wire), wireString(last.watch.wire))
	}
	b.Log(table.String())
}

// applyAndWatch applies n ConfigMaps in a namespace of their own with enc,
// watches them, deletes them (with the process's own encoding) and returns
// what the apply and the watch cost.
func applyAndWatch(b *testing.B, ctx context.Context, e *testcluster.Env, enc encoding, n int) cborRound {
	ns := newNamespace(b, e, "cbor")
	objects := make([]client.Object, n)
	for i := range objects {
		objects[i] = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": ns, "name": configMapName(i)},
			"data":     map[string]any{"value": "v1"},
		}}
	}
	wire := &wireCounter{server: serverPID(b, e.Config)}
	cfg := rest.CopyConfig(e.Config)
	cfg.QPS = -1
	cfg.Wrap(wire.wrap)
	if enc == asProtobuf {
		return applyAndWatchTyped(b, ctx, e, cfg, wire, ns, objects)
	}
	clientGates.mode.Store(int32(enc))
	defer clientGates.mode.Store(int32(asConfigured))
	// dynamic.NewForConfig reads the gates: the client speaks enc.
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	configMaps := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns)
	var round cborRound
	round.apply = wire.measure(func() {
		inWorkers(b, 8, objects, func(o client.Object) error {
			_, err := configMaps.Apply(ctx, o.GetName(), o.(*unstructured.Unstructured), metav1.ApplyOptions{FieldManager: "bench.wavekit.dev", Force: true})
			return err
		})
	})
	round.watch = wire.measure(func() { watchInitialEvents(b, ctx, configMaps, n) })
	clientGates.mode.Store(int32(asConfigured))
	if err := e.Client.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	return round
}

// watchInitialEvents watches the ConfigMaps of configMaps from their
// current state, as an informer's first watch does, and returns once the
// n ConfigMaps have come and the API server has marked the end of the
// initial events.
func watchInitialEvents(b *testing.B, ctx context.Context, configMaps dynamic.ResourceInterface, n int) {
	w, err := configMaps.Watch(ctx, initialEvents())
	if err != nil {
		b.Fatal(err)
	}
	awaitInitialEvents(b, ctx, w, n, func(apiruntime.Object) error { return nil })
}

// initialEvents are the options of a watch that starts with the current
// state, as an informer's does.
func initialEvents() metav1.ListOptions {
	sendInitialEvents := true
	return metav1.ListOptions{SendInitialEvents: &sendInitialEvents,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true}
}

// awaitInitialEvents reads w until the API server marks the end of its
// initial events, handing each object added to added, and stops w; the
// benchmark fails unless n objects came first.
func awaitInitialEvents(b *testing.B, ctx context.Context, w watch.Interface, n int, added func(apiruntime.Object) error) {
	defer w.Stop()
	count := 0
	for event := range w.ResultChan() {
		switch event.Type {
		case watch.Added:
			if err := added(event.Object); err != nil {
				b.Fatal(err)
			}
			count++
		case watch.Bookmark:
			if o, err := meta.Accessor(event.Object); err == nil && o.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				if count != n {
					b.Fatalf("the watch sent %d ConfigMaps before the end of its initial events, not %d", count, n)
				}
				return
			}
		case watch.Error:
			b.Fatalf("watch: %v", event.Object)
		}
	}
	b.Fatalf("the watch ended after %d of %d ConfigMaps: %v", count, n, ctx.Err())
}

// wireCounter counts the bodies that a client sends and receives, and
// notes the Content-Types of each exchange.
type wireCounter struct {
	// out is the request bodies; in the response bodies as the client
	// decodes them, wireIn as they came (gzipped or not).
	out, in, wireIn atomic.Int64
	mu              sync.Mutex
	seen            map[string]int
	// server is the PID of kube-apiserver, whose CPU a phase counts.
	server int
}

// wrap counts what passes through rt: the request bodies by their length
// (client-go sends bytes of a known length), the response bodies as they
// are read. It asks for gzip itself and undoes it, as Go's transport does
// when asked for nothing, so that it sees the bytes of a compressed
// response before and after.
func (w *wireCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if req.ContentLength > 0 {
			w.out.Add(req.ContentLength)
		}
		askedGzip := req.Header.Get("Accept-Encoding") == "" && req.Method != http.MethodHead
		if askedGzip {
			req = req.Clone(req.Context())
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s %s → %d %s", req.Method, orNone(req.Header.Get("Content-Type")), resp.StatusCode, orNone(resp.Header.Get("Content-Type")))
		body := io.ReadCloser(&countingBody{ReadCloser: resp.Body, n: []*atomic.Int64{&w.in, &w.wireIn}})
		if askedGzip && resp.Header.Get("Content-Encoding") == "gzip" {
			key += " (gzip)"
			body = &gunzipBody{raw: &countingBody{ReadCloser: resp.Body, n: []*atomic.Int64{&w.wireIn}}, n: &w.in}
			resp.Header.Del("Content-Encoding")
			resp.Header.Del("Content-Length")
			resp.ContentLength, resp.Uncompressed = -1, true
		}
		resp.Body = body
		w.mu.Lock()
		if w.seen == nil {
			w.seen = map[string]int{}
		}
		w.seen[key]++
		w.mu.Unlock()
		return resp, nil
	})
}

// gunzipBody decompresses a gzipped response body as it is read, and
// counts the bytes it gives.
type gunzipBody struct {
	raw io.ReadCloser
	n   *atomic.Int64
	zr  *gzip.Reader
}

func (g *gunzipBody) Read(p []byte) (int, error) {
	if g.zr == nil {
		zr, err := gzip.NewReader(g.raw)
		if err != nil {
			return 0, err
		}
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	g.n.Add(int64(n))
	return n, err
}

func (g *gunzipBody) Close() error { return g.raw.Close() }

func orNone(contentType string) string {
	if contentType == "" {
		return "(none)"
	}
	return contentType
}

// measure runs do and returns its wall time, the CPU this process used
// meanwhile, the bytes counted and the exchanges seen.
func (w *wireCounter) measure(do func()) wirePhase {
	runtime.GC() // the garbage of earlier phases is not this one's
	w.out.Store(0)
	w.in.Store(0)
	w.wireIn.Store(0)
	w.mu.Lock()
	w.seen = nil
	w.mu.Unlock()
	cpu, server, start := processCPU(), sampleProcess(w.server).cpu, time.Now()
	do()
	p := wirePhase{wall: time.Since(start), cpu: processCPU() - cpu, server: sampleProcess(w.server).cpu - server,
		out: w.out.Load(), in: w.in.Load(), wireIn: w.wireIn.Load()}
	w.mu.Lock()
	p.wire = maps.Clone(w.seen)
	w.mu.Unlock()
	return p
}

type countingBody struct {
	io.ReadCloser
	n []*atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	for _, counter := range c.n {
		counter.Add(int64(n))
	}
	return n, err
}

// processCPU is the user and system CPU time of this process so far, to
// the microsecond (sampleProcess's /proc figures count in 10 ms ticks,
// coarse for a watch's decoding).
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// medianPhase is the median of each figure of the rounds' phases, taken
// apart.
func medianPhase(rounds []cborRound, of func(cborRound) wirePhase) wirePhase {
	var walls, cpus, servers []time.Duration
	var outs, ins, wireIns []int64
	for _, r := range rounds {
		p := of(r)
		walls, cpus, servers = append(walls, p.wall), append(cpus, p.cpu), append(servers, p.server)
		outs, ins, wireIns = append(outs, p.out), append(ins, p.in), append(wireIns, p.wireIn)
	}
	middle := func(values []int64) int64 {
		slices.Sort(values)
		return values[len(values)/2]
	}
	return wirePhase{wall: median(walls), cpu: median(cpus), server: median(servers), out: middle(outs), in: middle(ins), wireIn: middle(wireIns)}
}

// wireString lists the exchanges of wire, most frequent first.
func wireString(wire map[string]int) string {
	keys := slices.Collect(maps.Keys(wire))
	slices.SortFunc(keys, func(a, b string) int { return wire[b] - wire[a] })
	parts := make([]string, len(keys))
	for i, key := range keys {
		parts[i] = fmt.Sprintf("%d× %s", wire[key], key)
	}
	return strings.Join(parts, ", ")
}
