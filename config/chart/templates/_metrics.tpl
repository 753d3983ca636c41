{{/*
"true" when the secure metrics endpoint serves the certificate of metrics.certSecret.
*/}}
{{- define "component-operator.metricsCerts" -}}
{{- if and .Values.metrics.enabled .Values.metrics.secure .Values.metrics.certSecret }}true{{ end }}
{{- end }}

{{/*
"true" when the metrics endpoint authenticates and authorizes its clients.
*/}}
{{- define "component-operator.metricsSecure" -}}
{{- if and .Values.metrics.enabled .Values.metrics.secure }}true{{ end }}
{{- end }}
