#!/usr/bin/env bash
# Captures rtnetlink's answers to platbench's qdisc dumps into
# telemetry/host/testdata/qdisc-{tbf,htb}.bin (the parser's tests read
# them): two network namespaces joined by a veth, a 1 Mbit/s tbf on one
# side flooded with UDP (so it queues, drops and holds packets), an htb
# root with classes on the other. Root and iproute2 needed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "capture-qdisc: needs root to create network namespaces" >&2; exit 1; }
command -v tc >/dev/null || { echo "capture-qdisc: iproute2's tc not found (fix: apt-get install iproute2)" >&2; exit 1; }
A=pbcapa B=pbcapb out=$PWD/telemetry/host/testdata
bin=$(mktemp)
cleanup() { ip netns del $A 2>/dev/null || true; ip netns del $B 2>/dev/null || true; rm -f "$bin"; }
cleanup
trap cleanup EXIT
go test -c -o "$bin" ./telemetry/host
for n in $A $B; do ip netns add $n; done
ip -n $A link add a0 type veth peer name a1 netns $B
ip -n $A addr add 10.99.0.1/24 dev a0
ip -n $B addr add 10.99.0.2/24 dev a1
ip -n $A link set a0 up
ip -n $B link set a1 up
ip netns exec $A tc qdisc add dev a0 root tbf rate 1mbit burst 32kbit limit 20000
ip netns exec $B tc qdisc add dev a1 root handle 1: htb default 10
ip netns exec $B tc class add dev a1 parent 1: classid 1:1 htb rate 30mbit ceil 50mbit
ip netns exec $B tc class add dev a1 parent 1:1 classid 1:10 htb rate 10mbit ceil 50mbit
ip netns exec $A python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = time.time()
while time.time() - t < 2:
    try: s.sendto(b'x' * 1400, ('10.99.0.2', 9))
    except OSError: pass
" &
sleep 1
PLATBENCH_CAPTURE_QDISC=$out PLATBENCH_CAPTURE_NAME=tbf ip netns exec $A "$bin" -test.run TestCaptureQdiscs
PLATBENCH_CAPTURE_QDISC=$out PLATBENCH_CAPTURE_NAME=htb ip netns exec $B "$bin" -test.run TestCaptureQdiscs
wait
echo "capture-qdisc: wrote $out/qdisc-tbf.bin and qdisc-htb.bin"
