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
bin/platbench k8s --loaders 3 --secret-out "$work/default-secret.yaml" -- --target 'cql://admin:s3cret@db:9042' --workload write >"$work/default.yaml" 2>>"$work/stderr.txt"
bin/platbench k8s --loaders 2 --pvc platbench-results --secret-out "$work/pvc-secret.yaml" -- --target null >"$work/pvc.yaml" 2>>"$work/stderr.txt"
bin/platbench k8s --loaders 9 --name bench-east --port 7171 --cpu 8 --memory 16Gi --image registry.example/platbench:v1 \
  --secret-out "$work/custom-secret.yaml" \
  -- --target kafka://b:9092 --workload produce --rate 40k --event '30s:kill:$(pidof x)' >"$work/custom.yaml" 2>>"$work/stderr.txt"
bin/platbench k8s --loaders 2 --name query --secret-out "$work/query-secret.yaml" \
  -- --target 'kafka://b:9092?sasl=plain&user=u&password=k4fkapw' --store postgres://perf:hunter2@pg/perf >"$work/query.yaml" 2>>"$work/stderr.txt"
bin/platbench k8s --loaders 2 --name inside --secret-in-manifest --out "$work/inside.yaml" -- --target 'cql://db:9042?password=s3cret' 2>/dev/null
grep -q "kubectl apply -f $work/default-secret.yaml" "$work/stderr.txt" ||
  { echo "check-k8s: platbench k8s did not say on stderr which Secret to apply first" >&2; exit 1; }
for pw in k4fkapw hunter2; do
  grep -q "$pw" "$work/query-secret.yaml" && ! grep -q "$pw" "$work/query.yaml" ||
    { echo "check-k8s: a password in --target's query or --store's URL is not in the Secret alone" >&2; exit 1; }
done
# A credential given on the command line is in the Secret's file, never in
# the Job's manifest; neither is the run's rendezvous secret.
rsecret=$(sed -n 's/^ *rendezvous-secret: *//p' "$work/default-secret.yaml")
grep -q 's3cret' "$work/default-secret.yaml" && [ -n "$rsecret" ] ||
  { echo "check-k8s: the Secret lacks the target's password or the rendezvous secret" >&2; exit 1; }
if grep -qF -e 's3cret' -e "$rsecret" "$work/default.yaml"; then
  echo "check-k8s: the Job's manifest holds a credential given on the command line" >&2; exit 1
fi
for f in "$work"/*.yaml; do
  validate "$f" || { echo "check-k8s: $(basename "$f") does not validate against the Kubernetes $VERSION schemas" >&2; exit 1; }
done
sed 's/completionMode: Indexed/completionMod: Indexed/' "$work/default.yaml" >"$work/broken.yaml.bad"
if validate "$work/broken.yaml.bad" >/dev/null 2>&1; then
  echo "check-k8s: a manifest with an unknown field passed: the validation does not bite" >&2; exit 1
fi
echo "check-k8s: manifests and Secrets valid against the Kubernetes $VERSION schemas (strict), no credential in a Job's manifest; a broken one refused"
