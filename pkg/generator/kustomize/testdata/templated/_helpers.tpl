{{- define "shop.replicas" -}}
{{ .Values.replicas | default 1 }}
{{- end -}}
