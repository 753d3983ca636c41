{{- define "greeting" }}{{ .Values.greeting | default "hi" }}{{ end }}
