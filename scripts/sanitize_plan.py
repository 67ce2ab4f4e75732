#!/usr/bin/env python3
"""Deal a gtest program's tests over N sanitizer processes by their expected time.

  sanitize_plan.py deal N TOOL PROGRAM TIMES... < test names   (N lines: ':'-joined filters)
  sanitize_plan.py estimate N TOOL PROGRAM TIMES... < test names (the plan's makespan, stderr)

TIMES: folders of an earlier sweep's shard logs (<tool>_<program>_*.txt, gtest's "[ OK ] name
(N ms)" lines) or its sanitize_logs.tgz. A test's expected time is its time under TOOL there,
else its longest under another tool (the tools cost alike within about 3x), else the median of
the program's known times. The longest first, each to the least loaded process (LPT: within
4/3 of the best makespan), so a few slow tests (BSR's tuning candidates, the solvers on real
matrices: minutes each under a tool) no longer pile up in one gtest shard.
"""
import re
import statistics
import sys
import tarfile
from pathlib import Path

LINE = re.compile(r"^\[ {7}OK \] (\S+) \((\d+) ms\)$|^\[  FAILED  \] (\S+) \((\d+) ms\)$")
NAME = re.compile(r"^(memcheck|racecheck|initcheck|synccheck)_([a-z]+)_")


def read_times(sources):
    """{(tool, program): {test: ms}} from shard logs in folders or .tgz files."""
    times = {}

    def take(name, text):
        m = NAME.match(Path(name).name)
        if not m:
            return
        table = times.setdefault((m.group(1), m.group(2)), {})
        for line in text.splitlines():
            t = LINE.match(line)
            if t:
                test, ms = (t.group(1), t.group(2)) if t.group(1) else (t.group(3), t.group(4))
                table[test] = max(table.get(test, 0), int(ms))

    for src in sources:
        p = Path(src)
        if p.is_dir():
            for f in sorted(p.glob("*_*.txt")):
                take(f.name, f.read_text(errors="replace"))
        elif p.is_file():
            with tarfile.open(p) as tar:
                for m in tar.getmembers():
                    if m.isfile() and m.name.endswith(".txt"):
                        take(m.name, tar.extractfile(m).read().decode(errors="replace"))
    return times


def expected(tests, tool, program, times):
    own = times.get((tool, program), {})
    other = {}
    for (t, prog), table in times.items():
        if prog == program and t != tool:
            for name, ms in table.items():
                other[name] = max(other.get(name, 0), ms)
    known = list(own.values()) or list(other.values()) or [1000]
    fallback = statistics.median(known)
    return {t: own.get(t, other.get(t, fallback)) for t in tests}


def deal(n, cost):
    loads = [[0, i, []] for i in range(n)]
    for test in sorted(cost, key=lambda t: (-cost[t], t)):
        least = min(loads)
        least[0] += cost[test]
        least[2].append(test)
    return [l for l in loads if l[2]]


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("deal", "estimate"):
        sys.exit(__doc__)
    n, tool, program = int(sys.argv[2]), sys.argv[3], sys.argv[4]
    tests = [l.strip() for l in sys.stdin if l.strip()]
    cost = expected(tests, tool, program, read_times(sys.argv[5:]))
    plan = deal(max(1, n), cost)
    if sys.argv[1] == "estimate":
        total = sum(cost.values())
        print(f"{tool} {program}: {len(tests)} tests, {total / 1000:.0f} s expected, "
              f"{len(plan)} processes, makespan {max(l[0] for l in plan) / 1000:.0f} s, "
              f"longest test {max(cost.values(), default=0) / 1000:.0f} s", file=sys.stderr)
        return
    for load in plan:
        print(":".join(load[2]))


if __name__ == "__main__":
    main()
