{{- /* The annotation prefix: the name of the operator that applies this chart. */ -}}
{{- define "gizmo.prefix" -}}wavekit.dev{{- end -}}
