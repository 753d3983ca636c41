{{/*
Chart name, overridable with nameOverride.
*/}}
{{- define "component-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name of the release's objects: fullnameOverride, or <release>-<chart name> (just the
release name when it already contains the chart name), at most 63 characters.
*/}}
{{- define "component-operator.fullname" -}}
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
{{- define "component-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object.
*/}}
{{- define "component-operator.labels" -}}
helm.sh/chart: {{ include "component-operator.chart" . }}
{{ include "component-operator.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: wavekit
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels that select the operator pods.
*/}}
{{- define "component-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "component-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Name of the ServiceAccount.
*/}}
{{- define "component-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "component-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image reference: repository with digest, or with tag (default: appVersion).
*/}}
{{- define "component-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Whether leader election is on: asked for, or more than one replica. Renders "true" or "".
*/}}
{{- define "component-operator.leaderElection" -}}
{{- if or .Values.leaderElection (gt (int .Values.replicas) 1) }}true{{ end }}
{{- end }}

{{/*
The rules the operator needs in its scope (cluster, or each watched namespace).
*/}}
{{- define "component-operator.rules" -}}
- apiGroups: ["wavekit.dev"]
  resources: ["components"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["wavekit.dev"]
  resources: ["components/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["wavekit.dev"]
  resources: ["components/finalizers"]
  verbs: ["update"]
# ComponentSets: one Component per selected cluster Secret (its metadata is
# read with rbac.readSources' get, list and watch on Secrets).
- apiGroups: ["wavekit.dev"]
  resources: ["componentsets"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["wavekit.dev"]
  resources: ["componentsets/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["wavekit.dev"]
  resources: ["componentsets/finalizers"]
  verbs: ["update"]
{{- if .Values.receiver.enabled }}
# Receivers: their paths go to their status; a verified webhook patches the
# annotation <operatorName>/reconcile-requested-at of the Components and
# ComponentSets one names (the patch rights above), and the token is read
# from the Receiver's Secret (rbac.readSources).
- apiGroups: ["wavekit.dev"]
  resources: ["receivers"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["wavekit.dev"]
  resources: ["receivers/status"]
  verbs: ["get", "update", "patch"]
{{- end }}
# Cluster API's Clusters, whose labels select their kubeconfig Secrets.
- apiGroups: ["cluster.x-k8s.io"]
  resources: ["clusters"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
{{- if .Values.rbac.readSources }}
# What Components read besides what they deploy: the ConfigMaps and Secrets of
# spec.valuesFrom and spec.chart.secretRef (watched as metadata), the chart
# repository Secrets of chart dependencies (listed; with a
# service account, their content is read as that account), and Flux sources.
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["source.toolkit.fluxcd.io"]
  resources: ["gitrepositories", "ocirepositories", "buckets", "helmcharts", "helmrepositories", "externalartifacts"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- if and .Values.componentSets .Values.rbac.readSources }}
# ComponentSets keep a copy of each cluster's kubeconfig Secret, owned by
# that cluster's Component (removed with it), so that its objects can be
# deleted when the Secret goes first (docs/fleet.md).
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "update"]
{{- end }}
{{- if .Values.rbac.keepRenders }}
# Each Component's current render (<name>.component.current-render), and the
# last Ready render of one with spec.remediation.strategy Rollback
# (<name>.component.render): Secrets of its namespace that it owns.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create", "update"]
{{- end }}
{{- if .Values.alerts.enabled }}
# Alerts and Providers (docs/notifications.md), and the Secrets their
# Providers name, read when an alert is sent and kept nowhere (under the
# lockdown, as the namespace's defaultServiceAccount).
- apiGroups: ["wavekit.dev"]
  resources: ["alerts", "providers"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
{{- end }}
{{- with .Values.rbac.extraRules }}
{{ toYaml . }}
{{- end }}
{{- if .Values.rbac.manageEverything }}
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
{{- end }}
{{- end }}

{{/*
The subjects of every binding: the operator's ServiceAccount.
*/}}
{{- define "component-operator.subjects" -}}
- kind: ServiceAccount
  name: {{ include "component-operator.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}


{{/*
The Secret of the keys that seal each Component's kept renders, in the
release namespace; the operator creates it on first start.
*/}}
{{- define "component-operator.renderKeySecret" -}}
{{- include "component-operator.fullname" . | trunc 52 | trimSuffix "-" }}-render-key
{{- end }}

{{/*
The GOMEMLIMIT variable of the operator container, or nothing: goMemLimit
"auto" takes the container's memory limit (resources.limits.memory), when
there is one; another value is used as it is; extraEnv's own GOMEMLIMIT
wins over both.
*/}}
{{- define "component-operator.goMemLimit" -}}
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
