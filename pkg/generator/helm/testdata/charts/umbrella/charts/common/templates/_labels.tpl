{{- define "common.labels" -}}
app.kubernetes.io/part-of: {{ .Release.Name }}
app.kubernetes.io/component: {{ .Chart.Name }}
environment: {{ .Values.global.env | default "none" }}
{{- end -}}
