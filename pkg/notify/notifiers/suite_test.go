package notifiers_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestNotifiers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "notifiers")
}
