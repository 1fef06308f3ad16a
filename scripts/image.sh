#!/usr/bin/env bash
# `make image`: a minimal container image of the static binary, without a
# container engine (none runs on these machines; docker build needs one).
# Built with crane (go-containerregistry, pinned) on an empty base:
#   /platbench                      the static binary (CGO_ENABLED=0)
#   /etc/ssl/certs/ca-certificates.crt  CA certificates for TLS targets
#   /etc/passwd, /etc/group         a non-root user platbench (65532)
#   /tmp, /results                  writable by that user (result files)
# user 65532:65532, entrypoint /platbench, tag = `platbench version`.
# Output: bin/platbench-image-<version>.tar, loadable with `docker load -i`
# or `podman load -i`, or pushable with `crane push`. IMAGE_REPO names it
# (default platbench).
set -euo pipefail
cd "$(dirname "$0")/.."
CRANE_VERSION=v0.20.2
export GOBIN="$PWD/.cache/gobin"
mkdir -p "$GOBIN"
[ -x "$GOBIN/crane" ] && "$GOBIN/crane" version | grep -qx "${CRANE_VERSION#v}" ||
  go install "github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION"
crane=$GOBIN/crane
repo=${IMAGE_REPO:-platbench}
make -s build
version=$(bin/platbench version | awk '{print $2; exit}')
[ -n "$version" ] || { echo "image.sh: platbench version printed nothing" >&2; exit 1; }
ca=/etc/ssl/certs/ca-certificates.crt
if [ ! -f "$ca" ] && command -v apt-get >/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates >/dev/null
fi
[ -f "$ca" ] || { echo "image.sh: $ca missing (fix: apt-get install ca-certificates)" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill "${reg:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
# One reproducible layer (fixed owners, modes and times), written by Python's
# tarfile so each entry gets its own owner and mode.
python3 - "$work/layer.tar" bin/platbench "$ca" <<'PY'
import io, sys, tarfile
out, binary, ca = sys.argv[1:]
def add(t, name, data=None, mode=0o644, uid=0, kind=tarfile.REGTYPE):
    i = tarfile.TarInfo(name); i.mode, i.uid, i.gid, i.mtime, i.type = mode, uid, uid, 0, kind
    if data is not None:
        i.size = len(data)
    t.addfile(i, io.BytesIO(data) if data is not None else None)
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    for d in ("etc", "etc/ssl", "etc/ssl/certs"):
        add(t, d, mode=0o755, kind=tarfile.DIRTYPE)
    add(t, "tmp", mode=0o1777, kind=tarfile.DIRTYPE)
    add(t, "results", mode=0o755, uid=65532, kind=tarfile.DIRTYPE)
    add(t, "platbench", open(binary, "rb").read(), mode=0o755)
    add(t, "etc/ssl/certs/ca-certificates.crt", open(ca, "rb").read())
    add(t, "etc/passwd", b"root:x:0:0:root:/:/sbin/nologin\nplatbench:x:65532:65532:platbench:/results:/sbin/nologin\n")
    add(t, "etc/group", b"root:x:0:\nplatbench:x:65532:\n")
PY

# crane mutate works on a registry: a throwaway one on loopback.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$crane" registry serve --address "127.0.0.1:$port" >"$work/registry.log" 2>&1 &
reg=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
ref=127.0.0.1:$port/$repo:$version
"$crane" append --oci-empty-base --platform linux/amd64 -f "$work/layer.tar" -t "$ref" >"$work/crane.log" 2>&1 ||
  { cat "$work/crane.log" >&2; exit 1; }
out=bin/platbench-image-$version.tar
"$crane" mutate "$ref" --user 65532:65532 --entrypoint /platbench --workdir /results \
  --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
  --label org.opencontainers.image.version="$version" --label org.opencontainers.image.title=platbench \
  --set-platform linux/amd64 -t "$repo:$version" -o "$out" >"$work/crane.log" 2>&1 ||
  { cat "$work/crane.log" >&2; exit 1; }
echo "image: $out ($repo:$version; load with: docker load -i $out)"
