package inputs_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

func entries(docs ...string) []v1alpha1.InputEntry {
	out := make([]v1alpha1.InputEntry, 0, len(docs))
	for _, d := range docs {
		out = append(out, v1alpha1.InputEntry{JSON: apiextensionsv1.JSON{Raw: []byte(d)}})
	}
	return out
}

var _ = Describe("a list", func() {
	It("gives each entry's fields, its id or its index as the id, sorted by id", func() {
		list, err := (&inputs.Reader{}).Read(context.Background(), "ns", &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{
			List: entries(`{"id":"team-b","size":2}`, `{"size":1}`, `{"id":7}`)}}, inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(list).To(HaveLen(3))
		Expect([]string{list[0].ID, list[1].ID, list[2].ID}).To(Equal([]string{"1", "7", "team-b"}))
		Expect(list[2].Fields).To(HaveKeyWithValue("size", BeNumerically("==", 2)))
		Expect(list[0].Fields).To(HaveKeyWithValue("id", "1"))
	})

	It("refuses two entries of one id, and an entry that is not an object", func() {
		_, err := (&inputs.Reader{}).Read(context.Background(), "ns", &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{
			List: entries(`{"id":"a"}`, `{"id":"a"}`)}}, inputs.ReadOptions{})
		Expect(err).To(MatchError(ContainSubstring(`spec.inputs.list: two inputs have the id "a"`)))
		_, err = inputs.List(entries(`["a"]`))
		Expect(err).To(MatchError(ContainSubstring("[0]: want an object")))
	})

	It("says a kind this reader has no source for is not read, rather than giving no inputs", func() {
		list, err := (&inputs.Reader{}).Read(context.Background(), "ns", &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{
			PullRequests: &v1alpha1.PullRequestsInput{Provider: v1alpha1.PullRequestsGitHub, Repository: "o/r"}}}, inputs.ReadOptions{})
		Expect(err).To(MatchError(ContainSubstring("reads no pull requests")))
		Expect(list).To(BeNil())
	})
})

var _ = Describe("a matrix", func() {
	It("pairs every input of one source with every input of the other, ids joined", func() {
		list, err := (&inputs.Reader{}).Read(context.Background(), "ns", &v1alpha1.Inputs{Matrix: []v1alpha1.InputSource{
			{List: entries(`{"id":"eu","region":"eu-1"}`, `{"id":"us","region":"us-1"}`)},
			{List: entries(`{"id":"a","team":"a"}`, `{"id":"b","team":"b"}`, `{"id":"c","team":"c"}`)},
		}}, inputs.ReadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(list).To(HaveLen(6))
		Expect(list[0].ID).To(Equal("eu-a"))
		Expect(list[5].Fields).To(And(HaveKeyWithValue("region", "us-1"), HaveKeyWithValue("team", "c"), HaveKeyWithValue("id", "us-c")))
	})

	It("refuses a field both sources give, naming it", func() {
		_, err := (&inputs.Reader{}).Read(context.Background(), "ns", &v1alpha1.Inputs{Matrix: []v1alpha1.InputSource{
			{List: entries(`{"name":"x"}`)}, {List: entries(`{"name":"y"}`)},
		}}, inputs.ReadOptions{})
		Expect(err).To(MatchError(ContainSubstring(`both sources give the field "name"`)))
	})
})

var _ = Describe("substitution", func() {
	pr := inputs.Values{Input: inputs.Input{ID: "12", Fields: map[string]any{
		"id": "12", "number": float64(12), "branch": "feature/x", "labels": []any{"preview"},
		"meta": map[string]any{"owner": "ana"}}}, Cluster: "eu"}

	It("puts a field's text within a string, and a whole placeholder's value as it is", func() {
		out, err := inputs.Substitute([]byte(`{"namespace":"pr-${input.number}","values":{"labels":"${input.labels}","n":"${input.number}",
			"who":"${input.meta.owner} on ${cluster.name}","keep":"${HOME} and $${input.id}","big":12345678901234567890}}`), pr)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(And(ContainSubstring(`"namespace":"pr-12"`), ContainSubstring(`"labels":["preview"]`),
			ContainSubstring(`"n":12`), ContainSubstring(`"who":"ana on eu"`), ContainSubstring(`"keep":"${HOME} and $12"`),
			ContainSubstring(`"big":12345678901234567890`)))
	})

	It("names an unknown field and the fields there are", func() {
		_, err := inputs.Substitute([]byte(`{"a":["${input.nope}"]}`), pr)
		Expect(err).To(MatchError(And(ContainSubstring("a: [0]: ${input.nope}: input 12 has no field nope"), ContainSubstring("branch, id, labels, meta, number"))))
	})

	It("refuses a list within a longer string, and a cluster without a placement", func() {
		_, err := inputs.String("x-${input.labels}", pr)
		Expect(err).To(MatchError(ContainSubstring("a []interface {} has no text")))
		_, err = inputs.String("${cluster.name}", inputs.Values{Input: pr.Input})
		Expect(err).To(MatchError(ContainSubstring("no spec.placement")))
	})
})

var _ = Describe("a member's name", func() {
	It("is the template's result when it is a DNS label", func() {
		name, err := inputs.Name("preview-${input.number}", inputs.Values{Input: inputs.Input{ID: "12", Fields: map[string]any{"number": float64(12)}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(name).To(Equal("preview-12"))
	})

	It("is refused, with the input and the result, when it is not", func() {
		long := inputs.Values{Input: inputs.Input{ID: "7", Fields: map[string]any{"branch": "Feature/" + strings.Repeat("x", 70)}}}
		_, err := inputs.Name("app-${input.branch}", long)
		Expect(err).To(MatchError(And(ContainSubstring(`for input 7, not a valid name`), ContainSubstring("must be no more than 63 characters"),
			ContainSubstring("lower case"))))
	})
})
