#!/usr/bin/env bash
# Builds the three service images (smsauth/<service>:$SMSAUTH_TAG, default "local") from
# deploy/Dockerfile.<service>, with Docker when its engine answers and with podman otherwise.
# With podman it first makes the local base images (build-base-image.sh) and the PostgreSQL and
# Redis images of deploy/podman/compose*.podman.yaml, since nothing can be pulled there.
#   scripts/containers/build-images.sh [service...]
# Set COREPACK_INTEGRITY_KEYS=0 when your registry mirror serves metadata without npm's signatures.
set -euo pipefail
cd "$(dirname "$0")/../.."

services=("$@")
[ ${#services[@]} -gt 0 ] || services=(identity sms-delivery-gateway airport-api)
tag=${SMSAUTH_TAG:-local}
# Only passed when set, so the Dockerfile's default (verify signatures) holds otherwise.
corepack_args=()
[ -n "${COREPACK_INTEGRITY_KEYS:-}" ] && corepack_args=(--build-arg "COREPACK_INTEGRITY_KEYS=$COREPACK_INTEGRITY_KEYS")

# shellcheck source=scripts/containers/engine.sh
source scripts/containers/engine.sh

if [ "$engine" = docker ]; then
  for service in "${services[@]}"; do
    echo "== docker build smsauth/$service:$tag" >&2
    docker build "${corepack_args[@]}" -f "deploy/Dockerfile.$service" -t "smsauth/$service:$tag" .
  done
  exit 0
fi

export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/podman/containers.conf}
node_image=$(bash scripts/containers/build-base-image.sh | tail -n 1)
# --format docker keeps HEALTHCHECK (the OCI format has no field for it); --network host lets the
# build reach the registry as this machine does; --layers reuses the shared install stage.
build=(podman build --format docker --network host --layers)
echo "== podman build localhost/smsauth/postgres:15" >&2
"${build[@]}" -f deploy/podman/Containerfile.postgres -t localhost/smsauth/postgres:15 deploy/podman
echo "== podman build localhost/smsauth/redis:7" >&2
"${build[@]}" -f deploy/podman/Containerfile.redis -t localhost/smsauth/redis:7 deploy/podman
for service in "${services[@]}"; do
  echo "== podman build smsauth/$service:$tag (FROM $node_image)" >&2
  "${build[@]}" --build-arg "NODE_IMAGE=$node_image" "${corepack_args[@]}" \
    -f "deploy/Dockerfile.$service" -t "smsauth/$service:$tag" .
done
