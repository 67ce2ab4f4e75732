#!/usr/bin/env python3
"""Every test on the GPU machine, in few processes: each GoogleTest program runs in gtest shards
(GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX) dealt over the visible GPUs, so a CUDA context and the
modules load once a shard, not once a test (under ctest each of ~2,750 test processes paid
3.7 s on average on the 4-GPU machine, 2026-11-26, and a pass did not fit a 600 s call).

A test that fails in its shard, or never reported because its shard crashed or timed out, runs
again alone (its own process, as under ctest), so one test's sticky CUDA error is never blamed
on the next. Then the out-of-memory program runs alone on one GPU (it fills the device), and
ctest runs the tests that are not GoogleTest cases (mpirun, install, include check, Python).
The counts are checked against ctest's own list: every test ctest knows is accounted for.

  scripts/gpu_tests.py BUILD_DIR OUT_DIR      env: SHARDS_PER_GPU (default 8), JOBS_PER_GPU (8),
                                              TEST_TIMEOUT (s, per shard, default 540),
                                              DEADLINE (epoch s: no process runs past it),
                                              OOM_DONE (the log of the out-of-memory program,
                                              run alone by the caller before: not run again)
Writes OUT_DIR/tests_summary.json and OUT_DIR/tests_<program>_<shard>.log, prints a table.
Exit status 0 only when no test failed alone and every test was accounted for.
"""
import concurrent.futures as cf
import glob
import json
import os
import re
import subprocess
import sys
import time

LINE = re.compile(r"^\[ +(OK|SKIPPED|FAILED) +\] (\S+?)(?:,| \()")


def gpus():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
        n = sum(1 for l in out.splitlines() if l.startswith("GPU"))
    except OSError:
        n = 0
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [v for v in visible.split(",") if v] if visible else [str(i) for i in range(n)]
    return ids or ["0"]


def list_tests(exe):
    out = subprocess.run([exe, "--gtest_list_tests"], capture_output=True, text=True).stdout
    names, suite = [], ""
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            names.append(suite + line.split("#")[0].strip())
    return names


def outcomes(text):
    """Per test: OK, SKIPPED or FAILED, from the lines gtest prints when a test ends (the
    summary at the end repeats names without a time, and is ignored)."""
    res = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m and line.rstrip().endswith(" ms)"):
            res[m.group(2)] = m.group(1)
    return res


def env_for(gpu, omp):
    e = dict(os.environ)
    e.update(CUDA_VISIBLE_DEVICES=gpu, OMP_NUM_THREADS=str(omp), OMP_WAIT_POLICY="passive")
    return e


def run(cmd, env, timeout, log):
    t0 = time.time()
    deadline = float(os.environ.get("DEADLINE", "0"))
    if deadline:
        timeout = max(1, min(timeout, int(deadline - t0)))
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        text, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        text += "\n[timeout after %d s]\n" % timeout
        rc = 124
    if log:
        with open(log, "w") as f:
            f.write(text)
    return rc, text, time.time() - t0


def main():
    build, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    ids = gpus()
    per_gpu = int(os.environ.get("SHARDS_PER_GPU", "8"))
    jobs = int(os.environ.get("JOBS_PER_GPU", "8"))
    timeout = int(os.environ.get("TEST_TIMEOUT", "540"))
    omp = max(1, (os.cpu_count() or 2) // (jobs * len(ids)))
    t_start = time.time()
    programs = sorted(p for p in glob.glob(os.path.join(build, "tests", "spmvkit_*_tests"))
                      if not p.endswith(("gpu_memory_tests", "dist_tests")))
    listed = {p: list_tests(p) for p in programs}
    # Shards: a program of many tests gets SHARDS_PER_GPU shards a GPU, a small one one a GPU.
    work = []
    for p in programs:
        n = len(ids) * (per_gpu if len(listed[p]) > 200 else 1)
        for s in range(n):
            work.append((p, s, n))
    pool = cf.ThreadPoolExecutor(max_workers=jobs * len(ids))
    futures = {}
    for i, (p, s, n) in enumerate(work):
        gpu = ids[i % len(ids)]
        e = env_for(gpu, omp)
        e.update(GTEST_TOTAL_SHARDS=str(n), GTEST_SHARD_INDEX=str(s))
        log = os.path.join(out, "tests_%s_%d.log" % (os.path.basename(p), s))
        futures[pool.submit(run, [p], e, timeout, log)] = (p, s, n, gpu)
    results = {p: {} for p in programs}
    shard_info = []
    for f in cf.as_completed(futures):
        p, s, n, gpu = futures[f]
        rc, text, secs = f.result()
        results[p].update(outcomes(text))
        complete = bool(re.search(r"^\[==========\] \d+ tests? from .* ran", text, re.M))
        shard_info.append({"program": os.path.basename(p), "shard": s, "of": n, "gpu": gpu,
                           "rc": rc, "seconds": round(secs, 1), "complete": complete})
    t_shards = time.time() - t_start

    # Alone: the failed and the unreported, one process each, as under ctest.
    again = [(p, t) for p in programs for t in listed[p] if results[p].get(t) in (None, "FAILED")]
    alone = {}
    futures = {}
    for i, (p, t) in enumerate(again):
        e = env_for(ids[i % len(ids)], omp)
        futures[pool.submit(run, [p, "--gtest_filter=" + t], e, 300, None)] = (p, t)
    alone_logs = []
    for f in cf.as_completed(futures):
        p, t = futures[f]
        rc, text, _ = f.result()
        o = outcomes(text).get(t, "FAILED" if rc else "NOT RUN")
        alone[(p, t)] = o
        if o != "OK" and o != "SKIPPED":
            alone_logs.append("==== %s %s (rc %d)\n%s" % (os.path.basename(p), t, rc, text[-6000:]))
    with open(os.path.join(out, "tests_alone.log"), "w") as f:
        f.write("\n".join(alone_logs))
    pool.shutdown()

    table = []
    total = {"tests": 0, "passed": 0, "skipped": 0, "failed": 0, "failed_in_shard_passed_alone": 0}
    failures = []
    for p in programs:
        row = {"program": os.path.basename(p), "tests": len(listed[p]), "passed": 0, "skipped": 0,
               "failed": 0, "failed_in_shard_passed_alone": 0, "unreported_in_shard": 0}
        for t in listed[p]:
            o = results[p].get(t)
            if o is None:
                row["unreported_in_shard"] += 1
            if (p, t) in alone:
                if o == "FAILED" and alone[(p, t)] in ("OK", "SKIPPED"):
                    row["failed_in_shard_passed_alone"] += 1
                o = alone[(p, t)]
            if o == "OK":
                row["passed"] += 1
            elif o == "SKIPPED":
                row["skipped"] += 1
            else:
                row["failed"] += 1
                failures.append(os.path.basename(p) + " " + t)
        table.append(row)
        for k in total:
            total[k] += row[k]

    # The out-of-memory program alone on one GPU, then everything ctest runs that is not a
    # GoogleTest case of the programs above.
    oom = os.path.join(build, "tests", "spmvkit_gpu_memory_tests")
    extra = {}
    if os.path.exists(oom):
        done = os.environ.get("OOM_DONE")  # its log, when the caller ran it alone before
        if done:
            with open(done) as f:
                text = f.read()
            rc, secs = (0 if re.search(r"^\[  PASSED  \]", text, re.M) else 1), 0.0
        else:
            rc, text, secs = run([oom], env_for(ids[0], omp), 600,
                                 os.path.join(out, "tests_gpu_memory.log"))
        o = outcomes(text)
        extra["gpu_memory"] = {"rc": rc, "seconds": round(secs, 1), "tests": len(list_tests(oom)),
                               "passed": sum(v == "OK" for v in o.values()),
                               "skipped": sum(v == "SKIPPED" for v in o.values()),
                               "failed": sum(v == "FAILED" for v in o.values())}
    labels = "core|formats|cli|solvers|select|gpu_memory"
    e = env_for(ids[0], omp)
    rc, text, secs = run(["ctest", "--test-dir", build, "-LE", labels, "-j", "4", "--timeout", "300",
                          "--output-on-failure"], e, 600, os.path.join(out, "tests_ctest_rest.log"))
    # "100% tests passed out of 13" or "92% tests passed, 1 tests failed out of 13"
    m = re.search(r"(\d+)% tests passed(?:, (\d+) tests? failed)? out of (\d+)", text)
    extra["ctest_rest"] = {"rc": rc, "seconds": round(secs, 1),
                           "tests": int(m.group(3)) if m else None,
                           "failed": int(m.group(2) or 0) if m else None,
                           "skipped": len(re.findall(r"\(Skipped\)|\*\*\*Not Run", text))}
    # ctest's own count of every test, to show nothing was left out.
    n_all = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True, text=True).stdout
    m_all = re.search(r"Total Tests: (\d+)", n_all)
    ctest_total = int(m_all.group(1)) if m_all else None
    accounted = total["tests"] + extra.get("gpu_memory", {}).get("tests", 0) + (extra["ctest_rest"]["tests"] or 0)

    summary = {"gpus": ids, "shards": shard_info, "programs": table, "total": total, "extra": extra,
               "failures": failures, "ctest_total": ctest_total, "accounted": accounted,
               "seconds_shards": round(t_shards, 1), "seconds": round(time.time() - t_start, 1),
               "commit": os.environ.get("SPMVKIT_COMMIT", "")}
    with open(os.path.join(out, "tests_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("tests on %d GPU(s): shards %.0f s, all %.0f s" % (len(ids), t_shards, summary["seconds"]))
    print("%-28s %6s %6s %6s %6s %s" % ("program", "tests", "passed", "skipped", "failed",
                                         "failed in shard, passed alone / unreported in shard"))
    for r in table:
        print("%-28s %6d %6d %6d %6d %d / %d" % (r["program"], r["tests"], r["passed"], r["skipped"],
                                               r["failed"], r["failed_in_shard_passed_alone"],
                                               r["unreported_in_shard"]))
    print("%-28s %6d %6d %6d %6d" % ("total (gtest programs)", total["tests"], total["passed"],
                                     total["skipped"], total["failed"]))
    for k, v in extra.items():
        print(k, json.dumps(v))
    print("accounted for %s of ctest's %s tests" % (accounted, ctest_total))
    incomplete = [s for s in shard_info if not s["complete"]]
    if incomplete:
        print("shards that did not run to the end:", json.dumps(incomplete))
    for f in failures[:40]:
        print("FAILED", f)
    bad = (total["failed"] or extra.get("gpu_memory", {}).get("failed") or
           extra.get("gpu_memory", {}).get("rc") or extra["ctest_rest"]["rc"] or accounted != ctest_total)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
