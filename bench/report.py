#!/usr/bin/env python3
"""Tables from `spmvkit bench --json` results (standard library only).

  bench/report.py summary FILE.json...      every record: GB/s, % of ceiling, ratios
  bench/report.py hec-table DIR             HEC paper tables 2/3: GPU formats vs the CPU backend
  bench/report.py csr3 DIR                  CSR-3 (own ordering) vs cuSPARSE on RCM-ordered input

DIR holds the JSON of one run (bench/results/<date>-<device>/).
"""
import glob
import json
import math
import os
import sys


def load(paths):
    records, heads = [], []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        heads.append(doc)
        for r in doc["results"]:
            r = dict(r)
            r["_file"] = os.path.basename(p)
            records.append(r)
    return heads, records


def ok(r):
    return r["status"] == "ok"


def header(heads):
    h = heads[0]
    return (f"device {h['device']}, {h['driver']}, commit {h['commit']}, {h['date'][:10]}, "
            f"read ceiling {h['ceiling_gbs']:.0f} GB/s")


def summary(paths):
    heads, records = load(paths)
    print(header(heads))
    print()
    print("| matrix | format | prec | nnz | spmv ms | GFLOP/s | GB/s | % ceiling | vs best cuSPARSE | vs cuSPARSE CSR |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in records:
        if not ok(r):
            continue
        vb = f"{r['ratio_vs_cusparse']:.2f}x" if r["ratio_vs_cusparse"] else "-"
        vc = f"{r.get('ratio_vs_cusparse_csr', 0):.2f}x" if r.get("ratio_vs_cusparse_csr") else "-"
        print(f"| {r['matrix']} | {r['format']} | {r['precision']} | {r['nnz']} | {r['spmv_ms']:.4f} | "
              f"{r['gflops']:.1f} | {r['gbs']:.0f} | {r['pct_ceiling']:.1f} | {vb} | {vc} |")


def times(records, backend, precision):
    """(matrix, format) -> spmv_ms for ok records of a backend and precision."""
    out = {}
    for r in records:
        if ok(r) and r["backend"] == backend and r["precision"] == precision:
            out[(r["matrix"], r["format"])] = r["spmv_ms"]
    return out


def hec_table(directory):
    heads, records = load(sorted(glob.glob(os.path.join(directory, "*.json"))))
    print(header([h for h in heads if h["backend"] == "cuda"]))
    cpu = [h for h in heads if h["backend"] == "cpu"]
    if cpu:
        print(f"CPU backend: {cpu[0]['device']}, {cpu[0]['driver']} (csr_scalar, OpenMP)")
    formats = ["csr_scalar", "csr_vector", "ell", "hyb", "hec"]
    for precision in ["f32", "f64"]:
        gpu = times(records, "cuda", precision)
        base = times(records, "cpu", precision)
        matrices = sorted({m for (m, f) in base})
        print()
        print(f"Speedup of each GPU format over the CPU backend ({precision}); '-' = format refused "
              "the matrix or not run")
        print()
        print("| matrix | nnz | CPU ms | " + " | ".join(formats) + " |")
        print("|---|---:|---:|" + "---:|" * len(formats))
        nnz = {r["matrix"]: r["nnz"] for r in records}
        geo = {f: [] for f in formats}
        for m in matrices:
            cells = []
            for f in formats:
                t = gpu.get((m, f))
                if t:
                    s = base[(m, "csr_scalar")] / t
                    geo[f].append(s)
                    cells.append(f"{s:.1f}")
                else:
                    cells.append("-")
            print(f"| {m} | {nnz[m]} | {base[(m, 'csr_scalar')]:.3f} | " + " | ".join(cells) + " |")
        print("| geometric mean | | | " + " | ".join(
            f"{math.exp(sum(map(math.log, v)) / len(v)):.1f}" if v else "-" for v in geo.values()) + " |")


def csr3(directory):
    heads, records = load(sorted(glob.glob(os.path.join(directory, "*.json"))))
    own = times(records, "cuda", "f64")
    peers = {}
    for r in records:
        if ok(r) and r["backend"] == "cuda" and r["precision"] == "f64" and "+rcm" in r["matrix"] \
                and r["format"].startswith("cusparse_csr"):
            m = r["matrix"].split("+rcm")[0]
            peers[m] = min(peers.get(m, math.inf), r["spmv_ms"])
    print(header(heads))
    print()
    print("CSR-3 on its own ordering against the best cuSPARSE CSR algorithm given the RCM-ordered "
          "matrix (f64)")
    print()
    print("| matrix | nnz | rows | csr3 ms | cuSPARSE(RCM) ms | speedup |")
    print("|---|---:|---:|---:|---:|---:|")
    nnz = {r["matrix"]: (r["nnz"], r["rows"]) for r in records}
    speedups = []
    for m in sorted(peers):
        t = own.get((m, "csr3"))
        if not t:
            continue
        s = peers[m] / t
        speedups.append(s)
        print(f"| {m} | {nnz[m][0]} | {nnz[m][1]} | {t:.4f} | {peers[m]:.4f} | {s:.2f}x |")
    if speedups:
        g = math.exp(sum(map(math.log, speedups)) / len(speedups))
        print(f"\ngeometric mean over {len(speedups)} matrices: {g:.2f}x; "
              f"faster on {sum(s > 1 for s in speedups)}, slower on {sum(s < 1 for s in speedups)}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"summary": lambda: summary(args), "hec-table": lambda: hec_table(args[0]),
     "csr3": lambda: csr3(args[0])}.get(cmd, lambda: sys.exit(__doc__))()
