package reliability_test

import (
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// samples are the samples of a Prometheus text exposition, by metric name:
// each its label set as written ({a="b",...}, "" without labels) and value.
type samples map[string][]sample

type sample struct {
	labels string
	value  float64
}

// sampleLine matches one sample line: name, labels, value.
var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$`)

// scrape reads the operator's metrics at addr (plain HTTP).
func scrape(addr string) samples {
	GinkgoHelper()
	body, err := get("http://" + addr + "/metrics")
	Expect(err).NotTo(HaveOccurred())
	out := samples{}
	for _, line := range strings.Split(body, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		value, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		out[m[1]] = append(out[m[1]], sample{labels: m[2], value: value})
	}
	return out
}

// sum adds the samples of name whose labels contain each of labels (a
// `key="value"` each).
func (s samples) sum(name string, labels ...string) float64 {
	total := 0.0
	for _, sm := range s[name] {
		matches := true
		for _, l := range labels {
			matches = matches && strings.Contains(sm.labels, l)
		}
		if matches {
			total += sm.value
		}
	}
	return total
}
