#!/usr/bin/env bash
# The production drill: follows docs/production.md ("The first start") word for word on the
# container images, and proves through TLS only that the stack works. Run by
# `pnpm test:containers` after its other phases; runs alone too, once the images exist
# (scripts/containers/build-images.sh):
#   scripts/containers/production-drill.sh
#
# 1. makes the secret files as the runbook does (openssl), with a self-signed certificate for
#    the two host names, made for this run, which the client alone trusts;
# 2. builds the TLS terminator's image (deploy/tls; cached after the first time) and starts
#    deploy/compose.production.yaml + compose.production.outbox.yaml (+ the podman override):
#    PostgreSQL, identity with every secret from a file, a tenant file and
#    FIRST_OPERATOR_PHONE_NUMBER, the gateway with its outbox, Caddy publishing 127.0.0.1:4443;
# 3. checks that no secret sits in a container's environment, then runs
#    production-signin.cjs: config.json, a 401, the first operator's console sign-in with the
#    code from the outbox, GET /api/v2/users with the operator's token, the caller's address;
#    and production-console.cjs: the same sign-in in Chromium through the console page;
# 4. prints identity's memory (idle, then after the sign-ins) and tears everything down, also
#    when a step fails.
# Docker when its engine answers, podman otherwise (CONTAINERS_CONF as test-containers.sh sets it).
# Uses 127.0.0.1:4443 (SMSAUTH_DRILL_HTTPS_PORT).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

project=smsauth-drill
export SMSAUTH_TAG=${SMSAUTH_TAG:-local}
https_port=${SMSAUTH_DRILL_HTTPS_PORT:-4443}
# Extra sign-ins (other numbers) before the second memory reading; the sizing in the runbook.
extra_logins=${SMSAUTH_DRILL_EXTRA_LOGINS:-5}

fail() {
  echo "FAILED (production drill): $*" >&2
  exit 1
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
drill_started=$EPOCHREALTIME
step() { echo "-- [$(elapsed "$drill_started" "$EPOCHREALTIME")s] $*"; }

# shellcheck source=scripts/containers/engine.sh
source scripts/containers/engine.sh
if [ "$engine" = docker ]; then
  compose=(docker compose -p "$project" -f deploy/compose.production.yaml -f deploy/compose.production.outbox.yaml)
else
  export CONTAINERS_CONF=${CONTAINERS_CONF:-$repo/deploy/podman/containers.conf}
  compose=(podman-compose -p "$project" -f deploy/compose.production.yaml -f deploy/podman/compose.production.podman.yaml -f deploy/compose.production.outbox.yaml)
fi
command -v openssl >/dev/null || fail "openssl is needed (apt-get install openssl)"
# The drill runs the images test-containers.sh (build-images.sh) made; it builds none of them.
required_images=("smsauth/identity:$SMSAUTH_TAG" "smsauth/sms-delivery-gateway:$SMSAUTH_TAG")
[ "$engine" = podman ] && required_images+=(localhost/smsauth/postgres:15 localhost/smsauth/redis:7 localhost/debian:bookworm-slim)
for image in "${required_images[@]}"; do
  "$engine" image inspect "$image" >/dev/null 2>&1 || fail "no image $image: run scripts/containers/build-images.sh first"
done
if (exec 3<>"/dev/tcp/127.0.0.1/$https_port") 2>/dev/null; then
  fail "127.0.0.1:$https_port is in use (another drill? \`${compose[*]} down -v\`)"
fi

container_of() {
  "$engine" ps -a --filter "label=com.docker.compose.project=$project" \
    --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | head -n 1
}

work=$(mktemp -d)
compose_log=$work/compose.log
drill_teardown() {
  local status=$?
  set +e
  trap - EXIT INT TERM
  if [ "$status" != 0 ]; then
    echo "-- container logs (last 30 lines each)"
    for service in postgres identity sms-delivery-gateway tls-proxy; do
      local name
      name=$(container_of "$service")
      [ -n "$name" ] || continue
      echo "-- $service ($name)"
      "$engine" logs --tail 30 "$name" 2>&1
    done
    [ -s "$compose_log" ] && { echo "-- compose output (last 20 lines)"; tail -n 20 "$compose_log"; }
  fi
  "${compose[@]}" down -v >/dev/null 2>&1
  [ "$engine" = podman ] && podman network rm -f "${project}_default" >/dev/null 2>&1
  rm -rf "$work"
  step "torn down"
  exit "$status"
}
trap drill_teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"${compose[@]}" down -v >/dev/null 2>&1 || true

# ---- the runbook's settings ("The first start") ------------------------------------------------
# Host names under .localhost (RFC 6761: never anyone else's); CONNECT_TO below stands in for the
# DNS records that would point them at the host.
export AUTH_HOST=auth.smsauth.localhost
export GATEWAY_HOST=sms-gateway.smsauth.localhost
export FIRST_OPERATOR_PHONE_NUMBER=+14155550123
# Twilio is not used with compose.production.outbox.yaml, but compose.production.yaml requires
# its settings: placeholders, as a first start before the Twilio account exists would have.
export TWILIO_ACCOUNT_SID=AC00000000000000000000000000000000
export TWILIO_FROM=+14155550100
export SMSAUTH_SECRETS_DIR=$work/secrets
export SMSAUTH_HTTPS_PUBLISH=127.0.0.1:$https_port

# ---- the secrets, as the runbook makes them ----------------------------------------------------
step "secrets in $SMSAUTH_SECRETS_DIR"
mkdir -p "$SMSAUTH_SECRETS_DIR"
(
  cd "$SMSAUTH_SECRETS_DIR"
  openssl rand -base64 48 >admin-client-secret
  openssl rand -base64 48 >key-encryption-secret
  openssl rand -base64 48 >gateway-auth-secret
  openssl rand -base64 48 >outbox-token
  openssl rand -hex 24 >postgres-password
  echo "postgres://smsauth:$(cat postgres-password)@postgres:5432/identity" >database-url
  redis_password=$(openssl rand -hex 24)
  printf 'requirepass %s\nsave ""\nappendonly no\n' "$redis_password" >redis-config
  echo "redis://:$redis_password@redis:6379" >redis-url
  echo 'not-used-with-the-outbox' >twilio-auth-token
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 7 \
    -subj "/CN=$AUTH_HOST" -addext "subjectAltName=DNS:$AUTH_HOST,DNS:$GATEWAY_HOST" \
    -keyout tls-key -out tls-certificate 2>/dev/null
  chown 1000:1000 ./*
  chown 999:999 postgres-password redis-config
  chmod 0400 ./*
)
# The client's copy of what it trusts: only this certificate.
cp "$SMSAUTH_SECRETS_DIR/tls-certificate" "$work/trusted.pem"

# ---- the TLS terminator's image ----------------------------------------------------------------
step "TLS terminator image (deploy/tls)"
if [ "$engine" = docker ]; then
  docker build -q -t "smsauth/tls-proxy:$SMSAUTH_TAG" deploy/tls >/dev/null
else
  podman build --format docker --network host --layers -q --build-arg DEBIAN_IMAGE=localhost/debian:bookworm-slim \
    -t "smsauth/tls-proxy:$SMSAUTH_TAG" deploy/tls >/dev/null
fi

# ---- start -------------------------------------------------------------------------------------
step "start ${compose[*]}"
if [ "$engine" = docker ]; then
  "${compose[@]}" up -d --no-build --wait >>"$compose_log" 2>&1 || fail "the production stack did not become healthy"
else
  # podman-compose 1.0 ignores depends_on conditions: start in dependency order, waiting for
  # each group's health checks (run on demand: no systemd timers here).
  healthy_within() {
    local service=$1 deadline=$((SECONDS + $2)) name
    name=$(container_of "$service")
    until [ -n "$name" ] && podman healthcheck run "$name" >/dev/null 2>&1; do
      [ $SECONDS -lt "$deadline" ] || fail "$service not healthy after $2 s"
      sleep 1
      name=$(container_of "$service")
    done
  }
  for group in "postgres redis" "identity sms-delivery-gateway" tls-proxy; do
    # shellcheck disable=SC2086 # a group is a list of service names
    "${compose[@]}" up -d --no-build $group >>"$compose_log" 2>&1 || true
    for service in $group; do
      [ -n "$(container_of "$service")" ] || fail "could not create the $service container"
      [ "$service" = tls-proxy ] || healthy_within "$service" 120
    done
  done
fi
step "started"

# The TLS terminator answers once Caddy has loaded the certificate.
deadline=$((SECONDS + 30))
until curl -s -o /dev/null --cacert "$work/trusted.pem" --resolve "$AUTH_HOST:$https_port:127.0.0.1" \
  "https://$AUTH_HOST:$https_port/healthz"; do
  [ $SECONDS -lt $deadline ] || fail "https://$AUTH_HOST (127.0.0.1:$https_port) does not answer after 30 s"
  sleep 0.5
done

# ---- the secrets stayed in files ---------------------------------------------------------------
for service in identity sms-delivery-gateway; do
  names=$("$engine" inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$(container_of "$service")" | sed 's/=.*//')
  for secret in DATABASE_URL ADMIN_CLIENT_SECRET KEY_ENCRYPTION_SECRET GATEWAY_AUTH_SECRET OUTBOX_TOKEN TWILIO_AUTH_TOKEN REDIS_URL; do
    if grep -qx "$secret" <<<"$names"; then fail "$service has $secret in its environment instead of ${secret}_FILE"; fi
  done
done
echo "no secret in the environment of identity or the gateway (all *_FILE)"
# Plain http is not published at all: the services are reached through the TLS terminator only.
for service in postgres redis identity sms-delivery-gateway; do
  published=$("$engine" port "$(container_of "$service")" 2>/dev/null || true)
  [ -z "$published" ] || fail "$service publishes $published: only the TLS terminator may"
done
echo "only the TLS terminator publishes a port (127.0.0.1:$https_port)"

memory_of() { "$engine" stats --no-stream --format '{{.MemUsage}}' "$(container_of "$1")" | sed 's/ \/.*//'; }
echo "identity memory after its first start, idle: $(memory_of identity)"

# ---- through TLS only --------------------------------------------------------------------------
step "sign-in through https://$AUTH_HOST"
proxy_address=$("$engine" inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$(container_of tls-proxy)")
AUTH_URL="https://$AUTH_HOST" GATEWAY_PUBLIC_URL="https://$GATEWAY_HOST" CONNECT_TO="127.0.0.1:$https_port" \
  CA_FILE="$work/trusted.pem" OUTBOX_TOKEN_FILE="$SMSAUTH_SECRETS_DIR/outbox-token" PROXY_ADDRESS="$proxy_address" \
  EXTRA_LOGINS="$extra_logins" node scripts/containers/production-signin.cjs
# The same sign-in in Debian's Chromium, through the console page itself (CI installs it; the
# browser tests need it too).
chromium_path=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$chromium_path" ]; then
  step "the console in Chromium"
  AUTH_URL="https://$AUTH_HOST" GATEWAY_PUBLIC_URL="https://$GATEWAY_HOST" CONNECT_TO="127.0.0.1:$https_port" \
    CA_FILE="$work/trusted.pem" OUTBOX_TOKEN_FILE="$SMSAUTH_SECRETS_DIR/outbox-token" CHROMIUM_PATH="$chromium_path" \
    node scripts/containers/production-console.cjs
else
  echo "SKIPPED: the console sign-in in Chromium needs $chromium_path (apt-get install chromium, or set CHROMIUM_PATH)" >&2
fi
# The gateway kept its records in Redis, reached with the password of its file: the keys of the
# deliveries just made are there, and Redis refuses a client without the password.
redis_in() { "$engine" exec "$(container_of redis)" redis-cli --no-auth-warning "$@"; }
redis_password=$(sed -n 's/^requirepass //p' "$SMSAUTH_SECRETS_DIR/redis-config")
redis_keys=$(redis_in -a "$redis_password" --scan --pattern 'smsauth:sms-gateway:*' | wc -l)
[ "$redis_keys" -gt 0 ] || fail "no smsauth:sms-gateway:* key in Redis after the sign-ins: the gateway did not use it"
redis_in ping | grep -q NOAUTH || fail "Redis answered a client without its password"
echo "Redis holds $redis_keys smsauth:sms-gateway:* key(s); it refuses a client without the password"

# The image's one-off command, with the service's environment (secrets from files), as the
# runbook's rotation step 3 runs it: on a tenant just made, everything is sealed with the secret.
step "smsauth-identity keys rotate-secret in the identity container"
rotated=$("$engine" exec "$(container_of identity)" smsauth-identity keys rotate-secret) || fail "keys rotate-secret failed: $rotated"
grep -q '^resealed 0 value(s) with KEY_ENCRYPTION_SECRET (key id [0-9a-f]\{8\}); [1-9][0-9]* already sealed with it\.$' <<<"$rotated" ||
  fail "keys rotate-secret said: $rotated"
echo "$rotated"
echo "memory after $((extra_logins + 2)) sign-ins: identity $(memory_of identity), PostgreSQL $(memory_of postgres), gateway $(memory_of sms-delivery-gateway), Caddy $(memory_of tls-proxy)"
step "production drill passed"
