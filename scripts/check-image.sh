#!/usr/bin/env bash
# Checks what `make image` builds (make test runs it): the tag is
# `platbench version`; the config runs /platbench as 65532:65532; the layer
# holds the binary (which reports that version), the CA certificates, a
# passwd entry for the user, a world-writable /tmp and /results owned by it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/image.sh
version=$(bin/platbench version | awk '{print $2; exit}')
img=bin/platbench-image-$version.tar
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xf "$img" -C "$work"
python3 - "$work" "$version" <<'PY'
import json, os, subprocess, sys, tarfile
work, version = sys.argv[1:]
fail = []
m = json.load(open(os.path.join(work, "manifest.json")))[0]
if m["RepoTags"] != ["platbench:" + version]:
    fail.append("tags %s, want platbench:%s" % (m["RepoTags"], version))
cfg = json.load(open(os.path.join(work, m["Config"])))
c = cfg["config"]
if c.get("User") != "65532:65532": fail.append("user %r" % c.get("User"))
if c.get("Entrypoint") != ["/platbench"]: fail.append("entrypoint %r" % c.get("Entrypoint"))
if cfg.get("os") != "linux" or cfg.get("architecture") != "amd64": fail.append("platform %s/%s" % (cfg.get("os"), cfg.get("architecture")))
with tarfile.open(os.path.join(work, m["Layers"][0])) as t:
    entries = {i.name: i for i in t.getmembers()}
    want = {"platbench": (0o755, 0), "etc/ssl/certs/ca-certificates.crt": (0o644, 0), "etc/passwd": (0o644, 0),
            "tmp": (0o1777, 0), "results": (0o755, 65532)}
    for name, (mode, uid) in want.items():
        e = entries.get(name)
        if e is None: fail.append("no /" + name); continue
        if e.mode != mode or e.uid != uid: fail.append("/%s mode %o uid %d, want %o uid %d" % (name, e.mode, e.uid, mode, uid))
    if b"platbench:x:65532:" not in t.extractfile("etc/passwd").read(): fail.append("no user 65532 in /etc/passwd")
    t.extract("platbench", os.path.join(work, "root"))
out = subprocess.run([os.path.join(work, "root", "platbench"), "version"], capture_output=True, text=True).stdout
if out.split()[1:2] != [version]: fail.append("the image's binary says %r, the tag %s" % (out.strip(), version))
if fail:
    print("check-image: " + "; ".join(fail)); sys.exit(1)
print("check-image: platbench:%s ok (user 65532, /platbench, CA certificates, /results)" % version)
PY
