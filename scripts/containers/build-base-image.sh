#!/usr/bin/env bash
# Builds the local stand-ins for the official base images on a machine that cannot pull images
# (see deploy/README.md, "Running with podman"):
#   localhost/debian:bookworm-slim       debootstrap minbase of Debian bookworm
#   localhost/node:<major>-bookworm-slim  the same plus this machine's node, npm and corepack,
#                                         laid out like the official node image (/usr/local),
#                                         with a `node` user (uid 1000) and the machine's CA bundle.
# Tagging them with the official names keeps the Dockerfiles standard: they are built here with
# `--build-arg NODE_IMAGE=localhost/node:20-bookworm-slim`.
# Idempotent: does nothing when both images exist (pass --force to rebuild).
# Needs root, debootstrap and podman. Prints the node image's name as its last line.
set -euo pipefail

force=false
[ "${1:-}" = "--force" ] && force=true

node_bin=$(command -v node)
node_major=$(node -p 'process.versions.node.split(".")[0]')
node_image="localhost/node:${node_major}-bookworm-slim"
debian_image="localhost/debian:bookworm-slim"

if ! $force && podman image exists "$node_image" && podman image exists "$debian_image"; then
  echo "base images exist: $debian_image, $node_image (pass --force to rebuild)" >&2
  echo "$node_image"
  exit 0
fi

# The Debian mirror this machine already uses, read from its own apt sources (deb822 first,
# then the one-line format), so no host name is written anywhere.
debian_mirror() {
  local f=/etc/apt/sources.list.d/debian.sources
  if [ -r "$f" ]; then
    # First stanza whose Suites name plain "bookworm".
    awk 'BEGIN { RS = ""; FS = "\n" }
      {
        uri = ""; ok = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
          if ($i ~ /^Suites:/) { n = split($i, s, /[ \t]+/); for (j = 2; j <= n; j++) if (s[j] == "bookworm") ok = 1 }
        }
        if (ok && uri != "") { print uri; exit }
      }' "$f"
    return
  fi
  awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null
}
mirror=$(debian_mirror)
if [ -z "$mirror" ]; then
  echo "could not find a bookworm mirror in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list" >&2
  exit 1
fi

keyring_args=()
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] && keyring_args=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)

rootfs=$(mktemp -d /var/tmp/smsauth-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT

echo "debootstrap bookworm (minbase) from $mirror" >&2
debootstrap --variant=minbase "${keyring_args[@]}" bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
  tail -n 30 "$rootfs.log" >&2
  rm -f "$rootfs.log"
  exit 1
}
rm -f "$rootfs.log"
# Like the official slim images: no package lists or caches in the image.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*

import() {
  local image=$1
  shift
  tar --numeric-owner -C "$rootfs" -c . | podman import --quiet "$@" - "$image" >/dev/null
  echo "imported $image" >&2
}

import "$debian_image" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]'

# Node, npm and corepack where the official image has them.
install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
node_modules=$(dirname "$(dirname "$(readlink -f "$node_bin")")")/lib/node_modules
mkdir -p "$rootfs/usr/local/lib/node_modules"
for pkg in npm corepack; do
  cp -a "$node_modules/$pkg" "$rootfs/usr/local/lib/node_modules/$pkg"
done
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
ln -sf ../lib/node_modules/corepack/dist/corepack.js "$rootfs/usr/local/bin/corepack"
# The registry is reached through a TLS proxy whose CA is only in this machine's bundle.
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
# The official image's unprivileged user.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

import "$node_image" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$(node -p process.versions.node)" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]'
echo "$node_image"
