{{/* The chart name, or nameOverride. */}}
{{- define "authz.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The prefix of every resource name: fullnameOverride, or release and chart name. */}}
{{- define "authz.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels that select the server's pods. */}}
{{- define "authz.selectorLabels" -}}
app.kubernetes.io/name: {{ include "authz.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: apiserver
{{- end -}}

{{/* Labels of every resource. */}}
{{- define "authz.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "authz.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "authz.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "authz.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret with the serving certificate: the user's, or the one generated at install. */}}
{{- define "authz.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "authz.fullname" .)) .Values.tls.existingSecret -}}
{{- end -}}

{{/* Whether client certificates of the CA generated at install authenticate callers. */}}
{{- define "authz.generatedClientCA" -}}
{{- if and .Values.clientCA.generated (not .Values.clientCA.existingSecret) (not .Values.tls.existingSecret) -}}true{{- end -}}
{{- end -}}

{{/* Whether the server runs on PostgreSQL (external or the trial StatefulSet) rather than the embedded store. */}}
{{- define "authz.usesPostgres" -}}
{{- if or .Values.database.url .Values.database.existingSecret .Values.postgresql.enabled -}}true{{- end -}}
{{- end -}}

{{/* The Secret and key holding DATABASE_URL. */}}
{{- define "authz.databaseSecretName" -}}
{{- default (printf "%s-database" (include "authz.fullname" .)) .Values.database.existingSecret -}}
{{- end -}}
{{- define "authz.databaseSecretKey" -}}
{{- if .Values.database.existingSecret -}}{{ .Values.database.existingSecretKey }}{{- else -}}DATABASE_URL{{- end -}}
{{- end -}}

{{/* The ConfigMap holding the configuration files rendered from values. */}}
{{- define "authz.configName" -}}
{{- printf "%s-config" (include "authz.fullname" .) -}}
{{- end -}}

{{/*
Values the schema cannot check: the embedded store holds one server's data, so several
replicas need PostgreSQL; a stopping pod must outlive its shutdown delay.
*/}}
{{- define "authz.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "authz.usesPostgres" .)) -}}
{{- fail "replicaCount > 1 needs PostgreSQL: set database.url or database.existingSecret (or postgresql.enabled for a trial); the embedded store serves a single replica" -}}
{{- end -}}
{{- if ge (int .Values.shutdownDelaySeconds) (int .Values.terminationGracePeriodSeconds) -}}
{{- fail "terminationGracePeriodSeconds must be larger than shutdownDelaySeconds (--shutdown-delay-duration)" -}}
{{- end -}}
{{- if and .Values.database.url .Values.postgresql.enabled -}}
{{- fail "database.url and postgresql.enabled exclude each other: choose the external database or the trial one" -}}
{{- end -}}
{{- end -}}

{{/* Joins a map as name=value pairs sorted by name (feature gates, runtime config). */}}
{{- define "authz.keyValues" -}}
{{- $pairs := list -}}
{{- range $key, $value := . -}}
{{- $pairs = append $pairs (printf "%s=%v" $key $value) -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end -}}

{{/* The server's flags, from the typed values and then extraArgs. */}}
{{- define "authz.args" -}}
- --bind-address=0.0.0.0
- {{ printf "--secure-port=%v" .Values.securePort | quote }}
- --data-dir=/var/lib/platform-authz
- --tls-cert-file=/etc/platform-authz/tls/tls.crt
- --tls-private-key-file=/etc/platform-authz/tls/tls.key
{{- if .Values.clientCA.existingSecret }}
- {{ printf "--client-ca-file=/etc/platform-authz/client-ca/%v" .Values.clientCA.key | quote }}
{{- else if include "authz.generatedClientCA" . }}
- --client-ca-file=/etc/platform-authz/tls/ca.crt
{{- end }}
{{- /* An AuthenticationConfiguration with an anonymous section decides anonymous access itself; the server refuses both. */}}
{{- if not (hasKey (.Values.authentication.config | default dict) "anonymous") }}
- {{ printf "--anonymous-auth=%v" .Values.authentication.anonymous | quote }}
{{- end }}
{{- if .Values.authentication.tokenFileSecret }}
- {{ printf "--token-auth-file=/etc/platform-authz/tokens/%v" .Values.authentication.tokenFileKey | quote }}
{{- end }}
{{- if .Values.authentication.config }}
- --authentication-config=/etc/platform-authz/config/authentication-config.yaml
{{- end }}
{{- with .Values.authentication.oidc }}
{{- if .issuerURL }}
- {{ printf "--oidc-issuer-url=%v" .issuerURL | quote }}
- {{ printf "--oidc-client-id=%v" .clientID | quote }}
{{- if .usernameClaim }}
- {{ printf "--oidc-username-claim=%v" .usernameClaim | quote }}
{{- end }}
{{- if .usernamePrefix }}
- {{ printf "--oidc-username-prefix=%v" .usernamePrefix | quote }}
{{- end }}
{{- if .groupsClaim }}
- {{ printf "--oidc-groups-claim=%v" .groupsClaim | quote }}
{{- end }}
{{- if .groupsPrefix }}
- {{ printf "--oidc-groups-prefix=%v" .groupsPrefix | quote }}
{{- end }}
{{- if .caSecret }}
- --oidc-ca-file=/etc/platform-authz/oidc-ca/ca.crt
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.serviceAccountTokens.issuer }}
- {{ printf "--service-account-issuer=%v" .Values.serviceAccountTokens.issuer | quote }}
{{- end }}
{{- if .Values.serviceAccountTokens.keySecret }}
- {{ printf "--service-account-signing-key-file=/etc/platform-authz/service-account/%v" .Values.serviceAccountTokens.signingKeyKey | quote }}
- {{ printf "--service-account-key-file=/etc/platform-authz/service-account/%v" .Values.serviceAccountTokens.publicKeyKey | quote }}
{{- end }}
{{- if .Values.authorization.config }}
- --authorization-config=/etc/platform-authz/config/authorization-config.yaml
{{- else }}
- {{ printf "--authorization-mode=%v" .Values.authorization.mode | quote }}
{{- if .Values.authorization.webhookConfigSecret }}
- --authorization-webhook-config-file=/etc/platform-authz/authorization-webhook/kubeconfig
{{- end }}
{{- end }}
{{- if .Values.audit.policy }}
- --audit-policy-file=/etc/platform-authz/config/audit-policy.yaml
{{- end }}
{{- if .Values.audit.logPath }}
- {{ printf "--audit-log-path=%v" .Values.audit.logPath | quote }}
{{- end }}
{{- if .Values.featureGates }}
- {{ printf "--feature-gates=%v" (include "authz.keyValues" .Values.featureGates) | quote }}
{{- end }}
{{- if .Values.runtimeConfig }}
- {{ printf "--runtime-config=%v" (include "authz.keyValues" .Values.runtimeConfig) | quote }}
{{- end }}
{{- if .Values.admissionPlugins }}
- {{ printf "--enable-admission-plugins=%v" (join "," .Values.admissionPlugins) | quote }}
{{- end }}
{{- if .Values.shutdownDelaySeconds }}
- {{ printf "--shutdown-delay-duration=%vs" .Values.shutdownDelaySeconds | quote }}
{{- end }}
{{- if .Values.shutdownSendRetryAfter }}
- --shutdown-send-retry-after=true
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}
