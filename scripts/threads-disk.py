#!/usr/bin/env python3
"""Context switches and CPU per I/O, thread by thread, of fio or the disk probe.

Usage: threads-disk.py FILE TOOL RW [ROUNDS]
  FILE   a laid-out file (e.g. on a tmpfs: O_DIRECT works there since Linux 6.6)
  TOOL   "fio" or the path of a platbench binary
  RW     randread, randwrite, read or write

Runs TOOL for RUNTIME seconds (default 3) on FILE, 1 job x iodepth 32
(IODEPTH), bs 4k (BS), O_DIRECT, io_uring, pinned with taskset to CPUS
(default 1), and reads /proc/PID/task/*/{status,schedstat,comm,syscall} of
every thread (fio's forked job included) at 1.0 s and at RUNTIME-0.5 s. The
differences over that window, divided by the I/Os of the window (the run's
IOPS times its length), give per thread: voluntary switches (it slept),
involuntary ones (it was preempted) and CPU µs per I/O. Each thread is
named by its comm and the system call it was in at the second reading
(/proc/TID/syscall: 426 io_uring_enter, 35 nanosleep, 202 futex, 281
epoll_pwait; "running" when in user space). Start-up and exit are outside
the window. Prints one line per run and one per thread; with ROUNDS > 1,
runs ROUNDS times.

With TURNS=1 it also records the scheduler's switches on the CPU for 1 s of
the window (perf record -e sched:sched_switch -C CPUS; the tracing slows
both tools alike, and its own start and writing-out take the rest) and prints the
turns the threads took: for the submitter (the busiest thread that is not
an io-wq worker: the runs here are one job, so there is one submitter) and the io-wq workers (iou-wrk-*), their turns per I/O, the
median and mean length of a turn, how a turn ended (S: the thread slept, R:
it was preempted) and, for each worker turn that followed a submitter turn,
the ratio of the two lengths. Needs perf and permission to trace.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def sample(pids):
    d = {}
    for pid in pids:
        for t in glob.glob('/proc/%d/task/*' % pid):
            try:
                status = open(t + '/status').read()
                comm = open(t + '/comm').read().strip()
                run_ns = int(open(t + '/schedstat').read().split()[0])
                sc = open(t + '/syscall').read().split()[0]
            except (OSError, IndexError, ValueError):
                continue
            v = nv = 0
            for line in status.splitlines():
                if line.startswith('voluntary_ctxt_switches'):
                    v = int(line.split()[1])
                elif line.startswith('nonvoluntary_ctxt_switches'):
                    nv = int(line.split()[1])
            d[int(t.rsplit('/', 1)[1])] = (comm + ':' + sc, v, nv, run_ns)
    return d


def one_run(path, tool, rw, out):
    runtime = float(os.environ.get('RUNTIME', '3'))
    depth = os.environ.get('IODEPTH', '32')
    bs = os.environ.get('BS', '4k')
    size = os.environ.get('SIZE', '512M')
    if tool == 'fio':
        cmd = ['fio', '--name=t', '--filename=' + path, '--size=' + size, '--rw=' + rw, '--bs=' + bs,
               '--direct=1', '--ioengine=io_uring', '--iodepth=' + depth, '--numjobs=1',
               '--runtime=%g' % runtime, '--time_based', '--randrepeat=0', '--norandommap',
               '--output-format=json', '--output=' + out]
    else:
        cmd = [tool, 'probe', 'disk', path, '--force', '--size', size, '--rw', rw, '--bs', bs,
               '--iodepth', depth, '--jobs', '1', '--engine', 'io_uring', '--duration', '%gs' % runtime,
               '--out', out]
    w0, w1 = 1.0, runtime - 0.5
    p = subprocess.Popen(['taskset', '-c', os.environ.get('CPUS', '1')] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def pids():
        try:
            kids = open('/proc/%d/task/%d/children' % (p.pid, p.pid)).read().split()
        except OSError:
            kids = []
        return [p.pid] + [int(k) for k in kids]

    time.sleep(w0)
    a = sample(pids())
    ta = time.monotonic()
    trace = out + '.perf'
    traced = 1.0  # seconds of tracing: perf's start and its writing out must end within the run
    if os.environ.get('TURNS') == '1':
        subprocess.run(['perf', 'record', '-q', '-e', 'sched:sched_switch', '-C', os.environ.get('CPUS', '1'),
                        '-o', trace, '--', 'sleep', '%g' % traced],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    else:
        time.sleep(w1 - w0)
    b = sample(pids())
    tb = time.monotonic()
    p.wait()
    r = json.load(open(out))
    if tool == 'fio':
        j = r['jobs'][0]
        ios = j['read']['total_ios'] + j['write']['total_ios']
        secs = j['job_runtime'] / 1000
    else:
        ph = r['phases'][0]
        ios = sum(o['count'] for o in ph['ops'])
        secs = ph['duration_ns'] / 1e9
    iops = ios / secs
    wio = iops * (tb - ta)
    rows = []
    for tid, (name, v, nv, rt) in b.items():
        _, v0, nv0, rt0 = a.get(tid, (name, 0, 0, 0))
        rows.append((name, tid, (v - v0) / wio, (nv - nv0) / wio, (rt - rt0) / 1e3 / wio))
    rows.sort(key=lambda x: -(x[2] + x[3]))
    tv, tn, tc = (sum(x[i] for x in rows) for i in (2, 3, 4))
    print('%s %s IOPS %.0f  per I/O: switches %.3f (voluntary %.3f, involuntary %.3f), CPU %.2f us'
          % (os.path.basename(tool), rw, iops, tv + tn, tv, tn, tc))
    for name, tid, v, nv, rt in rows:
        if v + nv > 0.0005 or rt > 0.005:
            print('   %-22s %7d voluntary %.4f involuntary %.4f CPU %.3f us' % (name, tid, v, nv, rt))
    if os.path.exists(trace):
        turns(trace, b, iops * traced)


SWITCH = re.compile(r'^\s*(\d+\.\d+):.*prev_comm=(.*?) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+) ')


def turns(trace, threads, wio):
    """Prints the submitter's and the io-wq workers' turns on the traced CPU."""
    text = subprocess.run(['perf', 'script', '--ns', '-i', trace, '-F', 'time,trace'], capture_output=True,
                          text=True, check=True).stdout
    run = {}  # tid -> CPU ns in the trace
    seq = []  # (tid, start, end, how it ended)
    cur = None
    for line in text.splitlines():
        m = SWITCH.match(line)
        if not m:
            continue
        t = float(m.group(1)) * 1e9
        prev, state, nxt = int(m.group(3)), m.group(4), int(m.group(6))
        if cur is not None and cur[0] == prev:
            seq.append((prev, cur[1], t, 'S' if state.startswith(('S', 'D')) else 'R'))
            run[prev] = run.get(prev, 0) + t - cur[1]
        cur = (nxt, t)
    workers = {tid for tid in run if tid in threads and threads[tid][0].startswith('iou-wrk')}
    others = [tid for tid in run if tid in threads and tid not in workers]
    if not others or not workers:
        print('   turns: no submitter or no io-wq worker in the trace')
        return
    sub = max(others, key=lambda tid: run[tid])
    for label, keep in (('submitter', lambda tid: tid == sub), ('io-wq worker', lambda tid: tid in workers)):
        ts = [(e - s) / 1e3 for tid, s, e, _ in seq if keep(tid)]
        slept = sum(1 for tid, _, _, how in seq if keep(tid) and how == 'S')
        q = statistics.quantiles(ts, n=10)
        print('   turns of the %-12s per I/O %.3f, length median %.2f us mean %.2f us (p10 %.1f p90 %.1f), ended asleep %.0f%%'
              % (label, len(ts) / wio, statistics.median(ts), statistics.fmean(ts), q[0], q[-1], 100 * slept / max(len(ts), 1)))
    ratios = [(b[2] - b[1]) / (a[2] - a[1]) for a, b in zip(seq, seq[1:])
              if a[0] == sub and b[0] in workers and a[2] > a[1]]
    if ratios:
        print('   a worker turn after a submitter turn: %d, length ratio median %.2f' % (len(ratios), statistics.median(ratios)))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, tool, rw = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    with tempfile.TemporaryDirectory() as d:
        for i in range(rounds):
            one_run(path, tool, rw, os.path.join(d, 'r%d.json' % i))


if __name__ == '__main__':
    main()
