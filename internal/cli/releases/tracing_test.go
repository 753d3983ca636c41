package releases_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

// traceLine is what the specs read of one span of a --trace file.
type traceLine struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ SpanID string }
	Status      struct{ Code string }
}

// readTrace returns the spans of a --trace file, one JSON object a line.
func readTrace(path string) []traceLine {
	GinkgoHelper()
	f, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var spans []traceLine
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		var s traceLine
		Expect(json.Unmarshal(scanner.Bytes(), &s)).To(Succeed(), scanner.Text())
		spans = append(spans, s)
	}
	Expect(scanner.Err()).NotTo(HaveOccurred())
	return spans
}

var _ = Describe("--trace", func() {
	It("writes the spans of apply, diff and delete to a file, one JSON object a line, without a Secret's value", func() {
		ns := clitest.NewNamespace()
		dir := GinkgoT().TempDir()
		const password = "tr4ce-cli-s3cret"
		applied := filepath.Join(dir, "apply.jsonl")
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password="+password, "--wait", "--trace", applied)
		spans := readTrace(applied)
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
			Expect(s.SpanContext.TraceID).To(Equal(spans[0].SpanContext.TraceID), "one trace for the run")
		}
		Expect(names).To(ContainElements("wavekit apply", "pass", "plan", "wave"))
		raw, err := os.ReadFile(applied)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring(password))

		diffed := filepath.Join(dir, "diff.jsonl")
		r := clitest.Wavekit("diff", "vault", "../testdata/secret", "-n", ns, "--set", "password=other", "--trace", diffed)
		Expect(r.Code).To(Equal(1), "a change")
		Expect(readTrace(diffed)).To(ContainElement(And(HaveField("Name", "wavekit diff"), HaveField("Status.Code", "Unset"))), "a change is no failure")

		deleted := filepath.Join(dir, "delete.jsonl")
		clitest.Succeeds("delete", "vault", "-n", ns, "--wait", "--trace", deleted)
		var deleteNames []string
		for _, s := range readTrace(deleted) {
			deleteNames = append(deleteNames, s.Name)
		}
		Expect(deleteNames).To(ContainElements("wavekit delete", "pass", "wave"))
		Expect(strings.Join(deleteNames, ",")).NotTo(ContainSubstring(password))
	})
})
