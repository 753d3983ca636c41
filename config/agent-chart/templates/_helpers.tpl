{{/*
Chart name, overridable with nameOverride.
*/}}
{{- define "wavekit-agent.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name of the release's objects: fullnameOverride, or <release>-<chart name> (just the
release name when it already contains the chart name), at most 63 characters.
*/}}
{{- define "wavekit-agent.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Chart name and version for the helm.sh/chart label.
*/}}
{{- define "wavekit-agent.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object.
*/}}
{{- define "wavekit-agent.labels" -}}
helm.sh/chart: {{ include "wavekit-agent.chart" . }}
{{ include "wavekit-agent.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/component: agent
app.kubernetes.io/part-of: wavekit
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels that select the agent pod.
*/}}
{{- define "wavekit-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "wavekit-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Name of the ServiceAccount.
*/}}
{{- define "wavekit-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "wavekit-agent.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image reference: repository with digest, or with tag (default: appVersion).
*/}}
{{- define "wavekit-agent.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
This cluster's namespace on the hub, which the install cannot do without.
*/}}
{{- define "wavekit-agent.hubNamespace" -}}
{{- required "hub.namespace is required: this cluster's namespace on the hub, which `wavekit agent register` printed" .Values.hub.namespace }}
{{- end }}

{{/*
The Secret of the hub kubeconfig.
*/}}
{{- define "wavekit-agent.hubSecret" -}}
{{- .Values.hub.kubeconfigSecret.name | default (printf "%s-hub" (include "wavekit-agent.fullname" . | trunc 59 | trimSuffix "-")) }}
{{- end }}

{{/*
The Secret of the release namespace in which the agent keeps its credential
on the hub (--credentials-secret): the token it renews, or, registered with
a bootstrap token, its client certificate. The agent creates it.
*/}}
{{- define "wavekit-agent.credentialsSecret" -}}
{{- .Values.hub.credentialsSecret | default (printf "%s-credentials" (include "wavekit-agent.fullname" . | trunc 51 | trimSuffix "-")) }}
{{- end }}

{{/*
How the agent reaches the hub, as arguments of `wavekit agent run`: the
kubeconfig from the hub Secret (mounted read-only; a token's, or a bootstrap
token's), and the Secret it keeps its renewed credential in, which a
restarted or replaced pod reads back. The volume and mount below go with it.
*/}}
{{- define "wavekit-agent.credentialArgs" -}}
- --hub-kubeconfig=/etc/wavekit/hub/kubeconfig
- --credentials-secret={{ .Release.Namespace }}/{{ include "wavekit-agent.credentialsSecret" . }}
{{- end }}

{{- define "wavekit-agent.credentialMounts" -}}
- name: hub-kubeconfig
  mountPath: /etc/wavekit/hub
  readOnly: true
{{- end }}

{{- define "wavekit-agent.credentialVolumes" -}}
- name: hub-kubeconfig
  secret:
    secretName: {{ include "wavekit-agent.hubSecret" . }}
    items:
      - key: {{ .Values.hub.kubeconfigSecret.key }}
        path: kubeconfig
{{- end }}

{{/*
The Secret of the keys that seal each Component's kept renders, in the
release namespace (the agent's own, POD_NAMESPACE): <operatorName>-render-key,
which the agent creates on first start.
*/}}
{{- define "wavekit-agent.renderKeySecret" -}}
{{- $suffix := "-render-key" }}
{{- printf "%s%s" (.Values.operatorName | trunc (int (sub 253 (len $suffix))) | trimSuffix "-" | trimSuffix ".") $suffix }}
{{- end }}

{{/*
What the agent needs cluster-wide, whatever its sources deploy: the
Components it writes from its ComponentWorks and runs (with their status
and finalizers), events, reading CustomResourceDefinitions (to protect the
instances of the CRDs its Components manage) and namespaces.
*/}}
{{- define "wavekit-agent.ownRules" -}}
- apiGroups: ["wavekit.dev"]
  resources: ["components"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["wavekit.dev"]
  resources: ["components/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["wavekit.dev"]
  resources: ["components/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["namespaces"]
  {{- if .Values.rbac.createNamespaces }}
  verbs: ["get", "list", "watch", "create", "update", "patch"]
  {{- else }}
  verbs: ["get", "list", "watch"]
  {{- end }}
{{- if .Values.rbac.readSources }}
# What Components read besides what they deploy: the ConfigMaps and Secrets of
# spec.valuesFrom and spec.chart.secretRef (watched as metadata), the chart
# repository Secrets of chart dependencies (listed), and Flux sources.
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["source.toolkit.fluxcd.io"]
  resources: ["gitrepositories", "ocirepositories", "buckets", "helmcharts", "helmrepositories", "externalartifacts"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- if .Values.rbac.keepRenders }}
# Each Component's current render and last Ready render: Secrets of its
# namespace that it owns.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create", "update"]
{{- end }}
{{- if .Values.rbac.manageEverything }}
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
{{- end }}
{{- end }}

{{/*
The subjects of every binding: the agent's ServiceAccount.
*/}}
{{- define "wavekit-agent.subjects" -}}
- kind: ServiceAccount
  name: {{ include "wavekit-agent.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}

{{/*
The GOMEMLIMIT variable of the agent container, or nothing: goMemLimit
"auto" takes the container's memory limit (resources.limits.memory), when
there is one; another value is used as it is; extraEnv's own GOMEMLIMIT
wins over both.
*/}}
{{- define "wavekit-agent.goMemLimit" -}}
{{- $own := false }}
{{- range .Values.extraEnv }}
{{- if eq .name "GOMEMLIMIT" }}{{ $own = true }}{{ end }}
{{- end }}
{{- $limit := (((.Values.resources).limits).memory) }}
{{- if and (not $own) (eq (toString .Values.goMemLimit) "auto") $limit }}
- name: GOMEMLIMIT
  valueFrom:
    resourceFieldRef:
      resource: limits.memory
{{- else if and (not $own) .Values.goMemLimit (ne (toString .Values.goMemLimit) "auto") }}
- name: GOMEMLIMIT
  value: {{ .Values.goMemLimit | quote }}
{{- end }}
{{- end }}
