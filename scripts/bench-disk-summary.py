#!/usr/bin/env python3
"""Tables of scripts/bench-disk.sh: platbench / fio medians per test.

Usage: bench-disk-summary.py OUT ROUNDS "CONFIGS" SEED004 MODE...

For each mode and JOBSxIODEPTH config, one row per test with the medians of
ROUNDS runs of each tool and their ratios (platbench / fio):
  * throughput: MB/s (10^6 B/s) for sequential tests, IOPS for random ones;
  * CPU per I/O: user+sys seconds of the whole process (io_uring worker
    threads included) from /usr/bin/time, over the I/Os completed;
  * latency p50, p99, p99.9: platbench's per-I/O latency (clock read before
    the request is queued to the clock read after the io_uring_enter that
    returned its completion) against fio's lat (io_u start to completion
    seen) and, in brackets, fio's clat (submission to completion seen).
The "paired" column is the order-balanced ratio of the rounds: each round's
platbench / fio, averaged (geometric mean) over the rounds fio ran first and,
separately, over those platbench ran first, then the two averaged. On a disk
that remembers the last run (a host's write-back cache, a warming server),
whoever runs first in a round can win by 10-25%; with an odd number of
rounds one order runs once more than the other and the medians lean its
way. With ROUNDS even the two orders weigh the same in the medians too.
Then seed 004's job: bandwidth of fio libaio, fio io_uring and platbench.
Writes OUT/summary.md and prints it.
"""
import json
import math
import statistics
import sys

NAMES = ["seq-write-1m", "seq-read-1m", "rand-write-4k", "rand-read-4k"]
PCTS = [("p50", "50.000000", "p50_ns"), ("p99", "99.000000", "p99_ns"), ("p99.9", "99.900000", "p999_ns")]


def cpu_seconds(path):
    user, sys_ = open(path).read().split()[:2]
    return float(user) + float(sys_)


def fio_run(base, write):
    j = json.load(open(base + ".json"))["jobs"][0]
    side = j["write"] if write else j["read"]
    ios = j["read"]["total_ios"] + j["write"]["total_ios"]
    return {
        "mbs": side["bw_bytes"] / 1e6,
        "iops": side["iops"],
        "cpu": cpu_seconds(base + ".time") / ios * 1e6,
        "lat": {p: side["lat_ns"]["percentile"][k] / 1e3 for p, k, _ in PCTS},
        "clat": {p: side["clat_ns"]["percentile"][k] / 1e3 for p, k, _ in PCTS},
    }


def pb_run(base):
    ph = json.load(open(base + ".json"))["phases"][0]
    secs = ph["duration_ns"] / 1e9
    op = ph["ops"][0]
    ios = sum(o["count"] for o in ph["ops"])
    return {
        "mbs": op["bytes"] / secs / 1e6,
        "iops": op["count"] / secs,
        "cpu": cpu_seconds(base + ".time") / ios * 1e6,
        "lat": {p: op["latency"][k] / 1e3 for p, _, k in PCTS},
    }


def med(runs, key, sub=None):
    return statistics.median(r[key][sub] if sub else r[key] for r in runs)


def paired(f, p, key):
    """The order-balanced geometric mean of the per-round ratios p/f (odd
    rounds ran fio first, even rounds platbench first; scripts/bench-disk.sh)."""
    logs = [[], []]
    for i, (a, b) in enumerate(zip(f, p)):
        logs[i % 2].append(math.log(b[key] / a[key]))
    groups = [statistics.fmean(g) for g in logs if g]
    return math.exp(statistics.fmean(groups))


def mode_table(out, mode, cfg, rounds):
    rows = [f"### {mode}, {cfg.replace('x', ' job(s) x iodepth ')}", "",
            f"Medians of {rounds} runs each; ratios are platbench / fio. Latency in µs: "
            "platbench vs fio lat [fio clat].", "",
            "| test | figure | fio | platbench | ratio | paired | CPU µs/I/O fio | platbench | ratio "
            "| p50 fio [clat] | platbench | ratio | p99 fio [clat] | platbench | ratio "
            "| p99.9 fio [clat] | platbench | ratio |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    worst = worst_paired = 0.0
    for n in NAMES:
        seq = n.startswith("seq")
        f = [fio_run(f"{out}/{mode}-{cfg}-fio-{n}-{r}", "write" in n) for r in range(1, rounds + 1)]
        p = [pb_run(f"{out}/{mode}-{cfg}-platbench-{n}-{r}") for r in range(1, rounds + 1)]
        key, unit = ("mbs", "MB/s") if seq else ("iops", "IOPS")
        fm, pm = med(f, key), med(p, key)
        pr = paired(f, p, key)
        worst = max(worst, abs(pm / fm - 1))
        worst_paired = max(worst_paired, abs(pr - 1))
        fc, pc = med(f, "cpu"), med(p, "cpu")
        cells = [n, unit, f"{fm:,.1f}", f"{pm:,.1f}", f"{pm / fm:.3f}", f"{pr:.3f}", f"{fc:.2f}", f"{pc:.2f}", f"{pc / fc:.3f}"]
        for name, _, _ in PCTS:
            fl, fcl, pl = med(f, "lat", name), med(f, "clat", name), med(p, "lat", name)
            cells += [f"{fl:,.0f} [{fcl:,.0f}]", f"{pl:,.0f}", f"{pl / fl:.3f}"]
        rows.append("| " + " | ".join(cells) + " |")
    rows += ["", f"largest deviation of the throughput medians ({mode}, {cfg}): {worst * 100:.1f}%; "
             f"of the paired ratios: {worst_paired * 100:.1f}%", ""]
    return rows


def seed004_table(out, mode, rounds):
    rows = [f"### {mode}, seed 004: rw=write bs=16K direct=1 numjobs=4 iodepth=128", "",
            "| tool | MB/s (median) | platbench / tool | CPU µs/I/O | runs (MB/s) |", "|---|---:|---:|---:|---|"]
    pb = [pb_run(f"{out}/{mode}-seed004-platbench-{r}") for r in range(1, rounds + 1)]
    pm = med(pb, "mbs")
    for tool, runs in [("fio libaio", [fio_run(f"{out}/{mode}-seed004-fio-libaio-{r}", True) for r in range(1, rounds + 1)]),
                       ("fio io_uring", [fio_run(f"{out}/{mode}-seed004-fio-io_uring-{r}", True) for r in range(1, rounds + 1)]),
                       ("platbench", pb)]:
        m = med(runs, "mbs")
        rows.append(f"| {tool} | {m:,.1f} | {pm / m:.3f} | {med(runs, 'cpu'):.2f} | "
                    + ", ".join(f"{r['mbs']:,.0f}" for r in runs) + " |")
    return rows + [""]


def main():
    out, rounds, configs, seed004, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4] == "1", sys.argv[5:]
    text = []
    for mode in modes:
        for cfg in configs:
            text += mode_table(out, mode, cfg, rounds)
        if seed004:
            text += seed004_table(out, mode, rounds)
    open(f"{out}/summary.md", "w").write("\n".join(text))
    print("\n".join(text))


main()
