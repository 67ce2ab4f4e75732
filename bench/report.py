#!/usr/bin/env python3
"""Tables from `spmvkit bench --json` results (standard library only).

  bench/report.py summary FILE.json...      every record: GB/s, % of ceiling, ratios
  bench/report.py hec-table DIR             HEC paper tables 2/3: GPU formats vs the CPU backend
  bench/report.py csr3 DIR                  CSR-3 (own ordering) vs cuSPARSE on RCM-ordered input
  bench/report.py setup FILE.json...        issue 24's setup table: upload and build ms, both in
                                            SpMV-equivalents, peak device memory, setup (upload
                                            included) against cuSPARSE CSR's on the same matrix
  bench/report.py suraa-variance FILE.json...
                                            SURAA figures 10-11: one row a matrix, ordered by npr
                                            variance; suraa, suraa_static against cuSPARSE CSR
  bench/report.py oracle FILE.json... [--svg OUT.svg]
                                            format=auto: per matrix its pick, the oracle, the
                                            ratio to it and to the best cuSPARSE; the share within
                                            1.10x, the geometric mean; an SVG plot of the ratios

DIR holds the JSON of one run (bench/results/<date>-<device>/).
"""
import gzip
import glob
import json
import math
import os
import re
import sys


def json_files(directory):
    """The bench JSON files of a folder, plain or gzipped, sorted."""
    return sorted(glob.glob(os.path.join(directory, "*.json")) +
                  glob.glob(os.path.join(directory, "*.json.gz")))


def load(paths):
    records, heads = [], []
    for p in paths:
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
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
    heads, records = load(json_files(directory))
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
    heads, records = load(json_files(directory))
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


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def suraa_variance(paths, low_cv=0.5):
    """SURAA's figures 10-11 as a table: one row a matrix (first backend/precision found per
    matrix), ordered by npr variance ascending; times of suraa, suraa_static, csr_balanced and
    the best cuSPARSE CSR algorithm, and the ratios best cuSPARSE CSR / SURAA (> 1: SURAA
    faster). `path` is what SURAA ran (suraa or the low-variance csr_balanced fallback); matrices
    with cv(npr) <= low_cv are the low-variance ones (the fallback's default threshold)."""
    heads, records = load(paths)
    print(header(heads))
    by = {}
    for r in records:
        key = (r["matrix"], r["backend"], r["precision"])
        m = by.setdefault(key, {"stats": None, "t": {}, "details": {}})
        if "npr_variance" in r and m["stats"] is None:
            m["stats"] = (r["npr_mean"], r["npr_variance"], r.get("npr_max", 0))
        if not ok(r):
            continue
        f = r["format"]
        if f.startswith("cusparse_csr"):
            f = "cusparse_csr"
        if f not in m["t"] or r["spmv_ms"] < m["t"][f]:
            m["t"][f] = r["spmv_ms"]
            m["details"][f] = r.get("details", "")
    rows = [(k, v) for k, v in by.items() if "suraa" in v["t"] or "suraa_static" in v["t"]]
    if not rows:
        print("no suraa / suraa_static records")
        return
    missing = [k[0] for k, v in rows if v["stats"] is None]
    rows.sort(key=lambda kv: (kv[1]["stats"] is None, kv[1]["stats"][1] if kv[1]["stats"] else 0))

    def ms(v):
        return f"{v:.4f}" if v else "-"

    def path(d):
        return d.split(",")[0].replace("path=", "") if d else "-"

    print()
    print("Ordered by npr variance (SURAA figures 10-11); ratio = best cuSPARSE CSR ms / format ms "
          "(> 1: faster than cuSPARSE)")
    print()
    print("| matrix | backend | prec | rows | nnz | npr mean | npr var | cv | npr max | suraa ms | "
          "suraa_static ms | csr_balanced ms | cuSPARSE CSR ms | suraa ratio | static ratio | "
          "static path |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    groups = {"high": {"suraa": [], "suraa_static": []}, "low": {"suraa": [], "suraa_static": []}}
    nnz = {(r["matrix"], r["backend"], r["precision"]): (r["rows"], r["nnz"]) for r in records}
    for (matrix, backend, prec), v in rows:
        t = v["t"]
        st = v["stats"]
        cv = math.sqrt(st[1]) / st[0] if st and st[0] > 0 else None
        peer = t.get("cusparse_csr")
        ratios = {}
        for f in ("suraa", "suraa_static"):
            ratios[f] = peer / t[f] if peer and t.get(f) else None
            if ratios[f] and cv is not None:
                groups["low" if cv <= low_cv else "high"][f].append(ratios[f])
        nr, nz = nnz[(matrix, backend, prec)]
        print(f"| {matrix} | {backend} | {prec} | {nr} | {nz} | "
              + (f"{st[0]:.2f} | {st[1]:.4g} | {cv:.2f} | {st[2]} | " if st else "- | - | - | - | ")
              + f"{ms(t.get('suraa'))} | {ms(t.get('suraa_static'))} | {ms(t.get('csr_balanced'))} | "
              f"{ms(peer)} | "
              + " | ".join(f"{ratios[f]:.2f}x" if ratios[f] else "-" for f in ("suraa", "suraa_static"))
              + f" | {path(v['details'].get('suraa_static'))} |")
    print()
    for g, label in (("high", f"cv(npr) > {low_cv}"), ("low", f"cv(npr) <= {low_cv}")):
        for f in ("suraa", "suraa_static"):
            vals = groups[g][f]
            if vals:
                print(f"{f}, {label}: {len(vals)} matrices, geometric mean {geomean(vals):.2f}x "
                      f"cuSPARSE CSR, faster on {sum(x > 1 for x in vals)}, "
                      f">= 0.8x on {sum(x >= 0.8 for x in vals)}")
    if missing:
        print(f"\nno npr statistics in the records of: {', '.join(missing)} (JSON from before "
              "bench recorded npr_mean/npr_variance; re-run the bench)")


def auto_pick(details):
    """The format auto chose, from its details ("chosen=bsr [...] by model: ...")."""
    if details.startswith("chosen="):
        return details[len("chosen="):].split(" ")[0]
    return "?"


def selection_ms(details):
    """The model's own time, from auto's details ("...; selection 0.41 ms")."""
    cut = details.find("; selection ")
    return details[cut + len("; selection "):].split(" ")[0] if cut >= 0 else "-"


def oracle(paths, svg=None):
    """format=auto against the oracle (bench's ratio_vs_oracle) and the best cuSPARSE."""
    heads, records = load(paths)
    print(header(heads))
    print()
    print("| matrix | nnz | variant | pick | oracle | auto / oracle time | vs best cuSPARSE | L2 | "
          "selection ms | auto / pick's record |")
    print("|---|---:|---|---|---|---:|---:|---|---:|---:|")
    # The same run's record of the format auto picked (its own build and timing of that format):
    # where the two are far apart on the same matrix, the gap to the oracle is timing, not choice.
    own = {(r["matrix"], r["format"], r.get("precision"), r.get("backend")): r
           for r in records if ok(r) and r.get("spmv_ms")}
    by_variant = {}
    for r in records:
        if not ok(r) or not (r["format"] == "auto" or r["format"].startswith("auto[")):
            continue
        if not r.get("ratio_vs_oracle"):
            continue
        pick = own.get((r["matrix"], auto_pick(r["details"]), r.get("precision"), r.get("backend")))
        r = dict(r, self_ratio=r["spmv_ms"] / pick["spmv_ms"] if pick else None)
        by_variant.setdefault(r["format"], []).append(r)
        peer = f"{r['ratio_vs_cusparse']:.3f}x" if r.get("ratio_vs_cusparse") else "-"
        mine = f"{r['self_ratio']:.3f}" if r["self_ratio"] else "-"
        print(f"| {r['matrix']} | {r['nnz']} | {r['format']} | {auto_pick(r['details'])} | "
              f"{r['oracle']} | {1 / r['ratio_vs_oracle']:.3f} | {peer} | "
              f"{'yes' if r['l2_resident'] else 'no'} | {selection_ms(r['details'])} | {mine} |")
    print()
    print("| variant | matrices | within 1.10x of the oracle | geomean (auto/oracle) | worst | "
          "beyond L2: slower than best cuSPARSE by > 3% | auto and its pick's record > 10% apart | "
          "picks |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for v, rs in sorted(by_variant.items()):
        slow = [1 / r["ratio_vs_oracle"] for r in rs]
        within = sum(x <= 1.10 for x in slow) / len(slow)
        big = [r for r in rs if not r["l2_resident"] and r.get("ratio_vs_cusparse")]
        behind = sum(r["ratio_vs_cusparse"] < 1 / 1.03 for r in big)
        picks = {}
        for r in rs:
            picks[auto_pick(r["details"])] = picks.get(auto_pick(r["details"]), 0) + 1
        pick_text = ", ".join(f"{k} {n}" for k, n in sorted(picks.items(), key=lambda kv: -kv[1]))
        paired = [r["self_ratio"] for r in rs if r["self_ratio"]]
        apart = sum(x > 1.10 or x < 1 / 1.10 for x in paired)
        print(f"| {v} | {len(rs)} | {100 * within:.1f}% | {geomean(slow):.3f}x | {max(slow):.2f}x | "
              f"{behind} of {len(big)} | {apart} of {len(paired)} | {pick_text} |")
    if svg and by_variant:
        write_oracle_svg(svg, by_variant, header(heads))
        print(f"\nplot: {svg}")


def write_oracle_svg(path, by_variant, title):
    """Auto's time over the oracle's, one dot a matrix, sorted, per variant (hand-written SVG)."""
    w, h, left, top, bottom = 760, 360, 60, 40, 40
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    top_ratio = max(1.25, min(3.0, max(1 / r["ratio_vs_oracle"]
                                       for rs in by_variant.values() for r in rs)))
    def y(v):
        return top + (h - top - bottom) * (1 - (min(v, top_ratio) - 1) / (top_ratio - 1))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="16">auto time / oracle time, matrices sorted '
           f'(dots above {top_ratio:.2f} drawn at the top)</text>',
           f'<text x="{left}" y="30" fill="#555">{title}</text>']
    for v in (1.0, 1.05, 1.10, top_ratio):
        out.append(f'<line x1="{left}" x2="{w - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="{"#999" if v != 1.10 else "#e88"}" stroke-dasharray="3,3"/>')
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
    for i, (v, rs) in enumerate(sorted(by_variant.items())):
        vals = sorted(1 / r["ratio_vs_oracle"] for r in rs)
        n = len(vals)
        for k, val in enumerate(vals):
            x = left + (w - left - 20) * (k + 0.5) / n
            out.append(f'<circle cx="{x:.1f}" cy="{y(val):.1f}" r="2.5" '
                       f'fill="{colors[i % len(colors)]}"/>')
        out.append(f'<text x="{w - 200}" y="{top + 14 * (i + 1)}" '
                   f'fill="{colors[i % len(colors)]}">{v} ({n} matrices)</text>')
    out.append(f'<text x="{(w + left) / 2}" y="{h - 12}" text-anchor="middle">'
               f'matrices, sorted by ratio</text></svg>')
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def setup(paths):
    """Format x matrix: the setup split. The baseline is cusparse_csr_alg1's setup_ms (its
    upload included) on the same matrix in the same run; the targets (issue 24) are a ratio
    <= 1.5 and a build <= 20 SpMV-equivalents. CSR-3's host reordering (its details'
    reorder_ms, which the issue times apart; auto's too where it chose csr3) is shown in its
    own column and left out of the build and setup figures (where it ran beside the upload, the
    upload is counted whole and the build beyond both at least 0); then per format the worst of each
    over every matrix, and over those of >= 1e7 nonzeros. With --setup-reps N the times are
    medians of up to N builds; the first build's setup (which also loads kernels) is shown
    apart, and so is its ratio to cuSPARSE CSR's first. Where bench paired a format's builds
    with cuSPARSE CSR's (kPairedSetupMaxMs: small setups, --setup-reps > 1), the median of the
    pairs' ratios is shown beside the ratio of the two medians, and the worst of each is listed."""
    heads, records = load(paths)
    print(header(heads))
    print()
    base = {(r["_file"], r["matrix"]): r["setup_ms"] for r in records
            if ok(r) and r["format"] == "cusparse_csr_alg1"}
    base_first = {(r["_file"], r["matrix"]): r.get("setup_first_ms", r["setup_ms"])
                  for r in records if ok(r) and r["format"] == "cusparse_csr_alg1"}
    print("| matrix | format | built on | upload ms | build ms | host reorder ms | "
          "upload SpMV-eq | build SpMV-eq | peak MB | format MB | setup ms | "
          "vs cuSPARSE CSR setup | paired (pairs) | builds | first build's setup ms | "
          "first vs cuSPARSE's first |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = {}
    for r in records:
        if not ok(r) or "build_ms" not in r:
            continue
        m = re.search(r"reorder_ms=([0-9.]+)", r.get("details", ""))
        csr3 = r["format"] == "csr3" or r.get("details", "").startswith("chosen=csr3 ")
        reorder = float(m.group(1)) if m and csr3 else 0.0
        build, setup_ms = r["build_ms"] - reorder, r["setup_ms"] - reorder
        up = r.get("upload_ms")
        if r.get("setup_apart_ms") is not None:
            # bench took each build's own reordering out of that build (later runs).
            reorder = r["host_reorder_ms"]
            build, setup_ms = r["build_apart_ms"], r["setup_apart_ms"]
        elif reorder and up is not None:
            # A small matrix's reordering runs beside its upload (upload_beside.hpp), so the
            # build beyond both may be below nothing: the upload counted whole, the build at
            # least 0 (at least the setup's wall time beyond the reordering).
            build = max(0.0, build)
            setup_ms = up + build
        build_eq = build / r["spmv_ms"] if r["spmv_ms"] > 0 else 0.0
        b = base.get((r["_file"], r["matrix"]))
        ratio = setup_ms / b if b else None
        up_eq = r.get("upload_spmv_equiv")
        first = r.get("setup_first_ms", r["setup_ms"]) - reorder
        bf = base_first.get((r["_file"], r["matrix"]))
        paired = r.get("setup_vs_peer_paired")
        paired_col = "-" if paired is None else f"{paired:.2f}x ({r.get('paired_builds', 0)})"
        print(f"| {r['matrix']} | {r['format']} | {r.get('built_on', '-')} | "
              f"{'-' if up is None else f'{up:.2f}'} | {build:.2f} | "
              f"{f'{reorder:.0f}' if reorder else '-'} | "
              f"{'-' if up_eq is None else f'{up_eq:.1f}'} | {build_eq:.1f} | "
              f"{r.get('build_peak_bytes', 0) / 1e6:.0f} | {r.get('format_bytes', 0) / 1e6:.0f} | "
              f"{setup_ms:.2f} | {'-' if ratio is None else f'{ratio:.2f}x'} | "
              f"{paired_col} | "
              f"{r.get('setup_reps', 1)} | {first:.2f} | "
              f"{'-' if not bf else f'{first / bf:.2f}x'} |")
        if not r.get("peer") and ratio is not None:
            for scope in ("all", "big") if r["nnz"] >= 1e7 else ("all",):
                w = worst.setdefault((scope, r["format"]), [0.0, "", 0.0, "", None, ""])
                if ratio > w[0]:
                    w[0:2] = [ratio, r["matrix"]]
                if build_eq > w[2]:
                    w[2:4] = [build_eq, r["matrix"]]
                if paired is not None and (w[4] is None or paired > w[4]):
                    w[4:6] = [paired, r["matrix"]]
    for scope, title in (("all", "every matrix"), ("big", "matrices of >= 1e7 nonzeros")):
        print()
        print(f"Worst over {title}:")
        print()
        print("| format | worst setup vs cuSPARSE CSR (<= 1.5x) | on | worst paired | on | "
              "worst build SpMV-eq (<= 20) | on |")
        print("|---|---:|---|---:|---|---:|---|")
        for (sc, f), (ratio, rm, eq, em, pr, pm) in sorted(worst.items()):
            if sc == scope:
                pcol = "- | -" if pr is None else \
                    f"{pr:.2f}x{'' if pr <= 1.5 else ' (over)'} | {pm}"
                print(f"| {f} | {ratio:.2f}x{'' if ratio <= 1.5 else ' (over)'} | {rm} | "
                      f"{pcol} | {eq:.1f}{'' if eq <= 20 else ' (over)'} | {em} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"summary": lambda: summary(args), "hec-table": lambda: hec_table(args[0]),
     "csr3": lambda: csr3(args[0]),
     "setup": lambda: setup(args), "suraa-variance": lambda: suraa_variance(args),
     "oracle": lambda: oracle([a for a in args if not a.endswith(".svg") and a != "--svg"],
                              next((a for a in args if a.endswith(".svg")), None))}.get(cmd, lambda: sys.exit(__doc__))()
