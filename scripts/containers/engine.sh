# Sourced by the container scripts that need only an engine, not its installation
# (build-images.sh, production-drill.sh): sets `engine` to SMSAUTH_ENGINE when given (as
# test-containers.sh passes it), else docker when its engine answers, else podman.
if [ -n "${SMSAUTH_ENGINE:-}" ]; then
  engine=$SMSAUTH_ENGINE
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=docker
else
  engine=podman
fi
