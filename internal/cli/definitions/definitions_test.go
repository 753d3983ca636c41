package definitions_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

var _ = Describe("wavekit definition create", func() {
	It("prints the definition of a folder and the CRD it makes, and says on stderr what the schema loses", func() {
		r := clitest.WavekitAlone("definition", "create", "Database", "testdata/database", "--group", "platform.example.com", "--short-name", "db")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(HavePrefix(`apiVersion: wavekit.dev/v1alpha1
kind: ComponentDefinition
metadata:
  name: databases.platform.example.com
spec:
  group: platform.example.com
  names:
    kind: Database
    plural: databases
    shortNames:
    - db
  source:
    source: database
  version: v1alpha1
---
# The CRD the operator writes for it (a preview: apply the definition, not this):
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
`))
		Expect(r.Stdout).To(And(ContainSubstring("description: How big the database is."), ContainSubstring("pattern: ^[0-9]+Gi$"),
			ContainSubstring("default: standard"), ContainSubstring("jsonPath: .status.revision")))
		Expect(r.Stderr).To(Equal(`the CRD cannot hold 3 keyword(s) of the schema:
  spec.backup: if (#/properties/backup/if): conditional checks (if/then/else) are not checked
  spec.backup: then (#/properties/backup/then): conditional checks (if/then/else) are not checked
  spec.backup.schedule: format (#/properties/backup/properties/schedule/format): the API server does not check the format "cron" of string values: the value is not checked against it
`))
	})

	DescribeTable("refuses bad input with exit code 1, and prints nothing",
		func(message string, args ...string) {
			r := clitest.WavekitAlone(append([]string{"definition", "create"}, args...)...)
			Expect(r.Code).To(Equal(1), r.Stdout)
			Expect(r.Stdout).To(BeEmpty())
			Expect(r.Stderr).To(ContainSubstring(message))
		},
		Entry("a kind in lower case", `KIND "database": a kind is CamelCase`, "database", "testdata/database", "--group", "platform.example.com"),
		Entry("no group", "--group is required", "Database", "testdata/database"),
		Entry("a short name the API server refuses", "spec.names.shortNames", "Database", "testdata/database", "--group", "platform.example.com", "--short-name", "DB"),
		Entry("a schema that cannot be made structural", `cannot be the schema of a kind: spec (#): the schema describes an array`,
			"Database", "testdata/database", "--group", "platform.example.com", "--schema", "testdata/array.schema.json"),
	)
})

var _ = Describe("wavekit definition render", func() {
	It("renders an instance as the operator would: defaults applied, the fields the definition maps over its fixed values", func() {
		r := clitest.WavekitAlone("definition", "render", "testdata/databases.yaml", "testdata/orders.yaml", "--path", "testdata/database")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(Equal(`apiVersion: v1
data:
  class: standard
  replicas: "3"
  size: 5Gi
  tier: small
kind: ConfigMap
metadata:
  name: orders-config
`))
	})

	It("refuses an instance the schema refuses, with the API server's message", func() {
		r := clitest.WavekitAlone("definition", "render", "testdata/databases.yaml", "testdata/huge.yaml", "--path", "testdata/database")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring(`the API server would refuse Database huge: spec.tier: Unsupported value: "huge": supported values: "small", "large"`))
	})

	It("needs the folder of a source it cannot fetch", func() {
		r := clitest.WavekitAlone("definition", "render", "testdata/databases.yaml", "testdata/orders.yaml")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("the definition's source is not a chart of a repository: give its folder with --path"))
	})
})
