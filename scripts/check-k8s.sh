#!/usr/bin/env bash
# Checks `platbench k8s` manifests against the official Kubernetes OpenAPI
# schemas, strictly (unknown fields refused), without a cluster: PyPI's
# kubernetes-validate (pinned; it bundles the schemas) in a virtualenv under
# .cache. make test runs it. A deliberately broken manifest must fail, so the
# check is known to bite.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=1.31.0 # kubernetes-validate, with the schemas of Kubernetes 1.31
venv=$PWD/.cache/k8s-validate
if [ ! -f "$venv/.kubernetes-validate-$VERSION" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "kubernetes-validate==$VERSION"
  touch "$venv/.kubernetes-validate-$VERSION"
fi
validate() { "$venv/bin/kubernetes-validate" --strict --quiet -k "$VERSION" "$@"; }
make -s build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin/platbench k8s --loaders 3 -- --target cql://db:9042 --workload write >"$work/default.yaml"
bin/platbench k8s --loaders 2 --pvc platbench-results -- --target null >"$work/pvc.yaml"
bin/platbench k8s --loaders 9 --name bench-east --port 7171 --cpu 8 --memory 16Gi --image registry.example/platbench:v1 \
  -- --target kafka://b:9092 --workload produce --rate 40k --event '30s:kill:$(pidof x)' >"$work/custom.yaml"
for f in "$work"/*.yaml; do
  validate "$f" || { echo "check-k8s: $(basename "$f") does not validate against the Kubernetes $VERSION schemas" >&2; exit 1; }
done
sed 's/completionMode: Indexed/completionMod: Indexed/' "$work/default.yaml" >"$work/broken.yaml.bad"
if validate "$work/broken.yaml.bad" >/dev/null 2>&1; then
  echo "check-k8s: a manifest with an unknown field passed: the validation does not bite" >&2; exit 1
fi
echo "check-k8s: manifests valid against the Kubernetes $VERSION schemas (strict); a broken one refused"
