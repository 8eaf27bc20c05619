{{/* Names, labels and the checks every template shares. */}}

{{- define "kro-ts.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's name, or release-chart when the release name does not contain the chart's. */}}
{{- define "kro-ts.fullname" -}}
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

{{- define "kro-ts.serviceAccountName" -}}
{{- default (include "kro-ts.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{- define "kro-ts.leaderElectionNamespace" -}}
{{- default .Release.Namespace .Values.leaderElection.namespace }}
{{- end }}

{{- define "kro-ts.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kro-ts.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* helm.sh/chart and managed-by only when Helm renders; the flat manifest leaves them out. */}}
{{- define "kro-ts.labels" -}}
{{ include "kro-ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: kro-ts
{{- if eq .Release.Service "Helm" }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
{{- end }}

{{/* Fails the render with a precise message for values that would install a broken controller. */}}
{{- define "kro-ts.validate" -}}
{{- if not (eq (toString .Values.rbac.mode) "aggregation" "unrestricted") }}
{{- fail (printf "rbac.mode: must be \"aggregation\" or \"unrestricted\", got %q" (toString .Values.rbac.mode)) }}
{{- end }}
{{- if not (eq (toString .Values.log.level) "debug" "info" "warn" "error") }}
{{- fail (printf "log.level: must be one of debug, info, warn, error, got %q" (toString .Values.log.level)) }}
{{- end }}
{{- if not (eq (toString .Values.log.format) "json" "text") }}
{{- fail (printf "log.format: must be json or text, got %q" (toString .Values.log.format)) }}
{{- end }}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "replicaCount: %d replicas need leaderElection.enabled=true (two active controllers would fight over every object)" (int .Values.replicaCount)) }}
{{- end }}
{{- if lt (int .Values.workers) 1 }}
{{- fail (printf "workers: must be at least 1, got %d" (int .Values.workers)) }}
{{- end }}
{{- end }}
