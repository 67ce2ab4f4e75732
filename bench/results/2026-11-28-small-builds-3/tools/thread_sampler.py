#!/usr/bin/env python3
"""thread_sampler.py OUT CMD...: runs CMD, sampling every ~2 ms each of its threads' name, last
CPU and CPU time (/proc/PID/task/*/stat), and /proc/stat's per-CPU steal before and after.
Writes OUT.threads.tsv (t_s tid name cpu utime+stime ticks) and OUT.steal.tsv (cpu before after,
steal ticks)."""
import os, subprocess, sys, time

def steal():
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                p = line.split()
                out[p[0]] = int(p[8])
    return out

out, cmd = sys.argv[1], sys.argv[2:]
s0 = steal()
p = subprocess.Popen(cmd)
t0 = time.time()
rows = []
last = {}
while p.poll() is None:
    try:
        for tid in os.listdir(f"/proc/{p.pid}/task"):
            try:
                with open(f"/proc/{p.pid}/task/{tid}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            name = st[st.index("(") + 1:st.rindex(")")]
            f2 = st[st.rindex(")") + 2:].split()
            cpu, ticks = int(f2[36]), int(f2[11]) + int(f2[12])
            key = (tid, cpu, ticks)
            if last.get(tid) != key:
                rows.append(f"{time.time() - t0:.4f}\t{tid}\t{name}\t{cpu}\t{ticks}")
                last[tid] = key
    except OSError:
        pass
    time.sleep(0.002)
s1 = steal()
with open(out + ".threads.tsv", "w") as f:
    f.write("\n".join(rows) + "\n")
with open(out + ".steal.tsv", "w") as f:
    for c in sorted(s0, key=lambda c: int(c[3:])):
        f.write(f"{c}\t{s0[c]}\t{s1.get(c, 0)}\t{s1.get(c, 0) - s0[c]}\n")
sys.exit(p.returncode)
