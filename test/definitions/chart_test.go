package definitions_test

import (
	"github.com/wavekit-dev/wavekit/internal/localrepo"
)

// databaseSchema is the chart's values.schema.json: nested objects, an
// enum, defaults, a pattern and a $ref.
const databaseSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Values of the database chart",
  "type": "object",
  "additionalProperties": false,
  "required": ["storage"],
  "properties": {
    "tier": {"type": "string", "enum": ["small", "large"], "default": "small", "description": "How big the database is."},
    "replicas": {"type": "integer", "minimum": 1, "default": 1, "description": "Pods of the database."},
    "storage": {"$ref": "#/definitions/storage", "description": "Where the data lives."}
  },
  "definitions": {
    "storage": {
      "type": "object",
      "additionalProperties": false,
      "required": ["size"],
      "properties": {
        "size": {"type": "string", "pattern": "^[0-9]+Gi$", "description": "The volume's size, in Gi."},
        "class": {"type": "string", "default": "standard", "description": "The StorageClass."}
      }
    }
  }
}`

// databaseChart is the chart at version: a Deployment in wave 0 and a
// ConfigMap in wave 1, which says whether this version is healthy (the
// definition's health check fails a ConfigMap that says it is not).
func databaseChart(version string, healthy bool) localrepo.Chart {
	health := "true"
	if !healthy {
		health = "false"
	}
	return localrepo.Chart{Name: "database", Version: version, Schema: []byte(databaseSchema),
		Values: map[string]any{"tier": "small", "replicas": 1, "storage": map[string]any{"size": "1Gi", "class": "standard"}},
		Templates: map[string]string{
			"deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  annotations:
    wavekit.dev/apply-order: "0"
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
        - name: db
          image: postgres:{{ .Chart.Version }}
`,
			"config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  annotations:
    wavekit.dev/apply-order: "1"
data:
  version: {{ .Chart.Version | quote }}
  tier: {{ .Values.tier | quote }}
  size: {{ .Values.storage.size | quote }}
  class: {{ .Values.storage.class | quote }}
  healthy: "` + health + `"
`,
		}}
}
