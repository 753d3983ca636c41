{{- define "app.labels" -}}
app.kubernetes.io/name: {{ .Name }}
app.kubernetes.io/instance: {{ .Name }}-{{ .Namespace }}
{{- end -}}
