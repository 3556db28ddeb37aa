{{/*
The templates keep to a small subset of Helm's template language, the one the chart's rendering test
(HelmChartTest in homing-gateway) implements: {{ .Values.x }}, .Release, .Chart and $; include; if, else if, else
and end; range over a list; the functions quote, default, or, not, toYaml, nindent and indent; .Files.Get. Anything
else fails that test: add it there first.
*/}}

{{/* The name of every object: the release's, unless fullnameOverride says otherwise. */}}
{{- define "homing.fullname" -}}
{{ .Values.fullnameOverride | default .Release.Name }}
{{- end }}

{{/*
Helm's labels, beside each object's app.kubernetes.io/name; never in a selector (a selector cannot change on an
upgrade).
*/}}
{{- define "homing.helmLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}

{{/* The namespace discovery watches, where its Role grants reading pods. */}}
{{- define "homing.discoveryNamespace" -}}
{{ .Values.discovery.namespace | default .Release.Namespace }}
{{- end }}

{{/* The Secret holding keys.yaml, the --config file with the keys; empty when no key is set. */}}
{{- define "homing.keysSecret" -}}
{{- if .Values.auth.existingSecret -}}
{{ .Values.auth.existingSecret }}
{{- else if or .Values.auth.apiKey .Values.auth.adminApiKey -}}
{{ include "homing.fullname" . }}-keys
{{- end -}}
{{- end }}
