{{- define "bench-service.labels" -}}
app.kubernetes.io/name: bench-service
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "bench-service.selector" -}}
app.kubernetes.io/name: bench-service
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
