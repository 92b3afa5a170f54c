#!/usr/bin/env bash
# `pnpm test:containers`: builds the three images, starts deploy/compose.yaml, waits until every
# service is ready, checks the containers (health, the compose network, the images' HEALTHCHECK,
# user, PID 1), seeds the demo tenant, runs the test-e2e suite and `pnpm demo` against the stack,
# checks that each service stops cleanly on SIGTERM, runs the production drill
# (scripts/containers/production-drill.sh: docs/production.md's first start, behind TLS), and
# tears everything down, also when a step fails. Prints the time of each phase. Needs `pnpm install` first (it builds test-e2e's
# workspace dependencies itself). See deploy/README.md.
#
# Docker when its engine answers (`docker info`); otherwise podman as described in
# deploy/README.md ("Running with podman"), installing podman, runc, podman-compose and
# debootstrap with apt-get when they are missing (needs root then).
# Uses host ports 4000, 4100, 4200, 4110 and (the production drill) 4443 on 127.0.0.1: they must be free.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

project=smsauth-test
services=(identity sms-delivery-gateway airport-api)
declare -A port=([identity]=4000 [sms-delivery-gateway]=4100 [airport-api]=4200)
export SMSAUTH_TAG=${SMSAUTH_TAG:-local}

# ---- timing -----------------------------------------------------------------------------------
started_at=$EPOCHREALTIME
phase_name=''
phase_started_at=$EPOCHREALTIME
timings=()
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
end_phase() {
  if [ -n "$phase_name" ]; then
    timings+=("$(printf '%-28s %7ss' "$phase_name" "$(elapsed "$phase_started_at" "$EPOCHREALTIME")")")
  fi
  phase_name=''
}
phase() {
  end_phase
  phase_name=$1
  phase_started_at=$EPOCHREALTIME
  echo
  echo "== $1"
}
print_timings() {
  end_phase
  echo
  echo "== timings"
  local line
  for line in "${timings[@]}"; do echo "  $line"; done
  printf '  %-28s %7ss\n' total "$(elapsed "$started_at" "$EPOCHREALTIME")"
}

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# ---- engine -----------------------------------------------------------------------------------
phase 'engine'
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=docker
  compose=(docker compose -p "$project" -f deploy/compose.yaml -f deploy/compose.e2e.yaml)
else
  engine=podman
  missing=()
  for tool in podman runc podman-compose debootstrap; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || fail "no Docker engine, and ${missing[*]} missing: install them (apt-get install podman runc podman-compose debootstrap) or run as root"
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc podman-compose debootstrap >/dev/null
  fi
  export CONTAINERS_CONF=$repo/deploy/podman/containers.conf
  # Containers find each other by service name only through the network backend's DNS server:
  # netavark's aardvark-dns, or CNI's dnsname plugin. podman installed without its recommended
  # packages has CNI and no dnsname, and identity then fails with "getaddrinfo ENOTFOUND postgres".
  backend=$(podman info --format '{{.Host.NetworkBackend}}')
  case $backend in
    netavark) dns_package=aardvark-dns; dns_present=$([ -x /usr/lib/podman/aardvark-dns ] && echo yes || true) ;;
    *) dns_package=golang-github-containernetworking-plugin-dnsname; dns_present=$([ -x /usr/lib/cni/dnsname ] && echo yes || true) ;;
  esac
  if [ -z "$dns_present" ]; then
    [ "$(id -u)" = 0 ] || fail "podman's $backend network has no DNS for service names: install $dns_package or run as root"
    echo "installing $dns_package (DNS for service names on podman's $backend network)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$dns_package" >/dev/null
  fi
  # netavark sets up a bridge's NAT and port forwards with iptables; without it every container
  # start fails with "netavark: No such file or directory (os error 2)" (Debian's netavark only
  # recommends iptables, and a machine without it was seen here).
  if [ "$backend" = netavark ] && ! command -v iptables >/dev/null; then
    [ "$(id -u)" = 0 ] || fail "podman's netavark network needs iptables: install it (apt-get install iptables) or run as root"
    echo "installing iptables (netavark's firewall driver)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables >/dev/null
  fi
  compose=(podman-compose -p "$project" -f deploy/compose.yaml -f deploy/podman/compose.podman.yaml -f deploy/compose.e2e.yaml)
fi
echo "engine: $engine ($("$engine" --version))"
export SMSAUTH_ENGINE=$engine

# Some registry mirrors serve npm metadata without signatures, which corepack then refuses inside
# the image build. Probe with an empty corepack cache, as the build has one; relax only if needed.
if [ -z "${COREPACK_INTEGRITY_KEYS+set}" ]; then
  probe_home=$(mktemp -d)
  if ! COREPACK_HOME=$probe_home COREPACK_ENABLE_DOWNLOAD_PROMPT=0 corepack pnpm --version >/dev/null 2>&1; then
    echo "corepack cannot verify pnpm's registry signature here: building with COREPACK_INTEGRITY_KEYS=0"
    export COREPACK_INTEGRITY_KEYS=0
  fi
  rm -rf "$probe_home"
fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for service in "${services[@]}"; do
  if port_in_use "${port[$service]}"; then
    fail "127.0.0.1:${port[$service]} is in use (is a stack already running? \`pnpm start\`, or \`${compose[*]} down\`)"
  fi
done
if port_in_use 4110; then fail "127.0.0.1:4110 (the e2e suite's routed gateway) is in use"; fi
if port_in_use 4443; then fail "127.0.0.1:4443 (the production drill's TLS terminator) is in use"; fi

# ---- teardown, whatever happens ----------------------------------------------------------------
container_of() {
  "$engine" ps -a --filter "label=com.docker.compose.project=$project" \
    --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | head -n 1
}
state_of() {
  local name
  name=$(container_of "$1")
  [ -n "$name" ] || { echo 'no container'; return; }
  "$engine" inspect --format '{{.State.Status}}, exit code {{.State.ExitCode}}, {{.RestartCount}} restarts' "$name" 2>/dev/null
}
teardown() {
  local status=$?
  set +e
  trap - EXIT INT TERM
  end_phase
  if [ "$status" != 0 ]; then
    echo
    echo "== container logs (last 40 lines each)"
    for service in postgres "${services[@]}" sms-delivery-gateway-failing sms-delivery-gateway-routed; do
      local name
      name=$(container_of "$service")
      [ -n "$name" ] || continue
      echo "-- $service ($name: $(state_of "$service"))"
      "$engine" logs --tail 40 "$name" 2>&1
    done
    if [ -s "${compose_log:-}" ]; then
      echo "-- ${compose[0]} output (last 30 lines)"
      tail -n 30 "$compose_log"
    fi
  fi
  phase 'teardown'
  [ -n "${control_pid:-}" ] && kill "$control_pid" 2>/dev/null
  rm -f "${control_log:-}"
  "${compose[@]}" down -v >/dev/null 2>&1
  # podman-compose 1.0 leaves the project network behind.
  [ "$engine" = podman ] && podman network rm -f "${project}_default" >/dev/null 2>&1
  rm -f "${compose_log:-}"
  print_timings
  if [ "$status" = 0 ]; then echo "test:containers passed"; else echo "test:containers FAILED" >&2; fi
  exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Leftovers of an interrupted run would hold the names and ports.
"${compose[@]}" down -v >/dev/null 2>&1 || true

# Generated per run: nothing here is a real secret, but no run depends on a checked-in value.
random_secret() { head -c 32 /dev/urandom | base64 | tr -d '=\n' | tr '+/' '-_'; }
ADMIN_CLIENT_ID=smsauth-test-admin
ADMIN_CLIENT_SECRET=$(random_secret)
KEY_ENCRYPTION_SECRET=$(random_secret)
POSTGRES_PASSWORD=$(random_secret)
GATEWAY_AUTH_SECRET=$(random_secret)
OUTBOX_TOKEN=$(random_secret)
export ADMIN_CLIENT_ID ADMIN_CLIENT_SECRET KEY_ENCRYPTION_SECRET POSTGRES_PASSWORD GATEWAY_AUTH_SECRET OUTBOX_TOKEN
# Every request of the suite reaches identity from one address (the port publisher).
export PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR=100000
# Where the stack is, for the seeding, the e2e suite and the demo (compose.yaml reads the last
# three too, so the gateway and the connections agree).
export AUTH_URL=http://localhost:4000
export GATEWAY_URL=http://localhost:4100
export BASE_URL=http://localhost:4200
export GATEWAY_DELIVERY_URL=http://sms-delivery-gateway:4100/sms
export FAILING_GATEWAY_DELIVERY_URL=http://sms-delivery-gateway-failing:4100/sms
# The routed gateway (compose.e2e.yaml): identity delivers to it on the compose network, the
# suite reads it on the published port.
export ROUTED_GATEWAY_DELIVERY_URL=http://sms-delivery-gateway-routed:4100/sms
export ROUTED_GATEWAY_URL=http://localhost:4110
export API_AUDIENCE=https://airport-api.example.com
export GATEWAY_AUTH_AUDIENCE=$GATEWAY_DELIVERY_URL
export GATEWAY_AUTH_SUBJECT=smsauth-identity

# ---- build --------------------------------------------------------------------------------------
if [ "$engine" = podman ]; then
  phase 'base images'
  bash scripts/containers/build-base-image.sh >/dev/null
fi
phase 'build images'
nice -n 10 bash scripts/containers/build-images.sh

# ---- start --------------------------------------------------------------------------------------
phase 'start stack'
compose_log=$(mktemp)
if [ "$engine" = docker ]; then
  # Compose itself waits for each `depends_on: condition: service_healthy`.
  "${compose[@]}" up -d --no-build >>"$compose_log" 2>&1 || fail "could not start the stack"
else
  # podman-compose 1.0 starts everything at once, ignoring depends_on conditions, and identity
  # exits when its database is not there yet. So start the stack in dependency order, waiting
  # for each group's health checks (run on demand: podman has no systemd here to schedule them).
  healthy_within() {
    local service=$1 deadline=$((SECONDS + $2)) name
    name=$(container_of "$service")
    until [ -n "$name" ] && podman healthcheck run "$name" >/dev/null 2>&1; do
      [ $SECONDS -lt "$deadline" ] || fail "$service not healthy after $2 s ($(state_of "$service"))"
      sleep 1
      name=$(container_of "$service")
    done
  }
  for group in postgres "identity sms-delivery-gateway sms-delivery-gateway-failing sms-delivery-gateway-routed" airport-api; do
    # shellcheck disable=SC2086 # a group is a list of service names
    "${compose[@]}" up -d --no-build $group >>"$compose_log" 2>&1 || true
    for service in $group; do
      [ -n "$(container_of "$service")" ] || fail "could not create the $service container"
      healthy_within "$service" 120
    done
    echo "started: $group"
  done
fi

phase 'wait until ready'
http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$1" || true; }
deadline=$((SECONDS + 180))
for service in "${services[@]}"; do
  url="http://127.0.0.1:${port[$service]}/readyz"
  until [ "$(http_status "$url")" = 200 ]; do
    name=$(container_of "$service")
    state=$([ -n "$name" ] && "$engine" inspect --format '{{.State.Status}}' "$name" 2>/dev/null || echo missing)
    case "$state" in
      running | created | starting) ;;
      *) fail "$service is $state instead of running" ;;
    esac
    # A service that exits at start (a bad setting) comes back through the restart policy.
    restarts=$("$engine" inspect --format '{{.RestartCount}}' "$name" 2>/dev/null || echo 0)
    [ "${restarts:-0}" = 0 ] || fail "$service exited and was restarted $restarts time(s)"
    [ $SECONDS -lt $deadline ] || fail "$service not ready at $url after 180 s (last status $(http_status "$url"))"
    sleep 1
  done
  echo "$service ready ($url)"
done

# ---- smoke checks (independent of the e2e suite) ------------------------------------------------
phase 'smoke checks'
for service in "${services[@]}"; do
  for path in /healthz /readyz; do
    status=$(http_status "http://127.0.0.1:${port[$service]}$path")
    [ "$status" = 200 ] || fail "$service $path answered $status"
    echo "$service $path -> 200"
  done
  name=$(container_of "$service")
  user=$("$engine" exec "$name" id -u)
  [ "$user" != 0 ] || fail "$service runs as root"
  env_line=$("$engine" exec "$name" printenv NODE_ENV)
  [ "$env_line" = production ] || fail "$service has NODE_ENV=$env_line"
  # Signals must reach node itself: it is PID 1, with no shell or package manager in between.
  pid1=$("$engine" exec "$name" cat /proc/1/cmdline | tr '\0' ' ')
  [ "$pid1" = "node dist/main.js " ] || fail "$service: PID 1 is '$pid1', not node"
  # The image's own HEALTHCHECK (liveness on /healthz), run inside the container as the engine would.
  image_json=$("$engine" image inspect "smsauth/$service:$SMSAUTH_TAG")
  mapfile -d '' check_argv < <(node -e '
    const [image] = JSON.parse(process.argv[1]);
    // Docker reports it under Config.Healthcheck, podman at the top level.
    const test = (image.Config?.Healthcheck ?? image.Healthcheck)?.Test;
    if (!Array.isArray(test) || test[0] !== "CMD") { console.error("no exec-form HEALTHCHECK in the image"); process.exit(1); }
    process.stdout.write(test.slice(1).join("\0") + "\0");' "$image_json")
  [ ${#check_argv[@]} -gt 0 ] || fail "$service: image has no HEALTHCHECK"
  "$engine" exec "$name" "${check_argv[@]}" || fail "$service: its image HEALTHCHECK fails"
  echo "$service image HEALTHCHECK -> healthy (uid $user, NODE_ENV=production, PID 1 is node)"
  # The compose health check (readiness), which depends_on waits for. Podman here has no systemd
  # to schedule it, so run it once; Docker schedules it and reports the status.
  if [ "$engine" = podman ]; then
    podman healthcheck run "$name" >/dev/null || fail "$service: compose health check reports unhealthy"
  else
    health_deadline=$((SECONDS + 60))
    until [ "$(docker inspect --format '{{.State.Health.Status}}' "$name")" = healthy ]; do
      [ $SECONDS -lt $health_deadline ] || fail "$service: Docker never reported it healthy"
      sleep 1
    done
  fi
  echo "$service compose health check -> healthy"
done
# The two paths that only exist on the compose network: identity delivering to the gateway, and
# the airport API fetching identity's keys.
in_container_get() {
  "$engine" exec "$(container_of "$1")" node -e \
    "fetch(process.argv[1]).then(r=>{console.log(r.status);process.exit(r.ok?0:1)},e=>{console.error(e.message);process.exit(1)})" "$2"
}
in_container_get identity http://sms-delivery-gateway:4100/healthz >/dev/null ||
  fail "identity cannot reach sms-delivery-gateway:4100 on the compose network"
echo "identity -> http://sms-delivery-gateway:4100 reachable"
in_container_get airport-api http://identity:4000/healthz >/dev/null ||
  fail "airport-api cannot reach identity:4000 on the compose network"
echo "airport-api -> http://identity:4000 reachable"
ready_deadline=$((SECONDS + 60))
until in_container_get identity http://sms-delivery-gateway-failing:4100/readyz >/dev/null 2>&1; do
  [ $SECONDS -lt $ready_deadline ] || fail "the e2e suite's failing gateway never became ready"
  sleep 1
done
echo "identity -> http://sms-delivery-gateway-failing:4100 ready (the e2e suite's failing provider)"
until in_container_get identity http://sms-delivery-gateway-routed:4100/readyz >/dev/null 2>&1 && [ "$(http_status http://127.0.0.1:4110/readyz)" = 200 ]; do
  [ $SECONDS -lt $ready_deadline ] || fail "the e2e suite's routed gateway never became ready"
  sleep 1
done
echo "identity -> http://sms-delivery-gateway-routed:4100 ready, and 127.0.0.1:4110 (the e2e suite's routed gateway)"

# ---- seed, e2e, demo -----------------------------------------------------------------------------
phase 'seed demo tenant'
[ -d node_modules/jest ] || fail "node_modules missing: run pnpm install first"
command -v pnpm >/dev/null || fail "pnpm is not on PATH (corepack enable)"
# The harness (@smsauth/stack) is used from dist/, by the seeding and by the suite's global setup.
pnpm --filter '@smsauth/test-e2e...' run build >/dev/null
DEMO_CLIENT_ID=$(node scripts/containers/seed-stack.cjs) || fail "could not seed the stack"
export DEMO_CLIENT_ID
echo "demo client: $DEMO_CLIENT_ID (connection sms, resource server $API_AUDIENCE)"

phase 'e2e suite'
find test-e2e/test -name '*.test.ts' 2>/dev/null | grep -q . || fail "test-e2e has no tests"
# The suite's restart case asks this endpoint to restart a container (E2E_CONTROL_URL).
control_log=$(mktemp)
SMSAUTH_PROJECT=$project node scripts/containers/control-server.cjs >"$control_log" 2>&1 &
control_pid=$!
for _ in $(seq 100); do
  grep -q '^http://' "$control_log" && break
  sleep 0.1
done
E2E_CONTROL_URL=$(grep -m 1 '^http://' "$control_log") || fail "the control endpoint did not start: $(cat "$control_log")"
export E2E_CONTROL_URL
node node_modules/jest/bin/jest.js --ci --selectProjects test-e2e
kill "$control_pid"; wait "$control_pid" 2>/dev/null || true
control_pid=''
grep -v '^http://' "$control_log" || true

phase 'pnpm demo'
# The spec's flow, step by step, as a user would run it against this stack.
node packages/stack/dist/demo.js

# ---- graceful stop --------------------------------------------------------------------------------
phase 'SIGTERM stop'
# Dependants first. `stop -t 10` sends SIGTERM and SIGKILLs after 10 s, which would show as 137.
for service in airport-api sms-delivery-gateway identity; do
  name=$(container_of "$service")
  t0=$EPOCHREALTIME
  # (podman without systemd complains that it cannot remove a health-check timer: harmless)
  "$engine" stop -t 10 "$name" >/dev/null 2>&1 || fail "could not stop $service"
  took=$(elapsed "$t0" "$EPOCHREALTIME")
  code=$("$engine" inspect --format '{{.State.ExitCode}}' "$name")
  [ "$code" = 0 ] || fail "$service exited with $code after SIGTERM (${took}s)"
  awk -v t="$took" 'BEGIN { exit !(t < 10) }' || fail "$service took ${took}s to stop"
  echo "$service stopped on SIGTERM in ${took}s, exit code 0"
done

# ---- the production drill -------------------------------------------------------------------------
phase 'production drill'
# docs/production.md's first start, word for word, on the images built above (its own compose
# project, torn down by the drill itself): TLS in front, secrets from files, the first operator
# signing in to the console.
bash scripts/containers/production-drill.sh
