{{- define "gizmo.prefix" -}}{{ .Release.Service }}{{- end -}}
