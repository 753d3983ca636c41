package main

import (
	"bytes"
	"strings"
	"testing"

	crzap "sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestLogFormat logs one line in each format, over the zap flags' choice.
func TestLogFormat(t *testing.T) {
	for format, isJSON := range map[string]bool{"json": true, "text": false} {
		var out bytes.Buffer
		opts := crzap.Options{Development: format == "json"} // the opposite of what --log-format asks
		if err := applyLogFormat(format, &opts); err != nil {
			t.Fatal(err)
		}
		crzap.New(crzap.UseFlagOptions(&opts), crzap.WriteTo(&out)).Info("reconciled", "component", "default/web")
		line := out.String()
		if strings.HasPrefix(line, "{") != isJSON || !strings.Contains(line, "reconciled") {
			t.Errorf("--log-format %s logged %q", format, line)
		}
	}
	if err := applyLogFormat("yaml", &crzap.Options{}); err == nil || err.Error() != "--log-format yaml: give json or text" {
		t.Errorf("--log-format yaml: %v", err)
	}
}
