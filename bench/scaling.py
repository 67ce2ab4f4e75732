#!/usr/bin/env python3
"""Multi-GPU scaling tables and plot from spmvkit-dist JSON (scripts/gpu-scaling.sh).

  python3 bench/scaling.py FILE.json... [--svg OUT.svg]

Strong scaling: records of one matrix and scheme over several rank counts, speedup = the
time on the fewest GPUs (1) / the time on P, efficiency = speedup / P; for row blocks also
without overlap and the merged CG / BiCGSTAB iteration. Weak scaling: row-block records of one
generator family (the name without its sizes) at about the same nonzeros per GPU, efficiency
= time on 1 GPU / time on P. Speedups are recomputed from the files' own times (ms()).
"""
import json
import re
import sys


def load(paths):
    recs = []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        for r in doc.get("results", []):
            r = dict(r)
            r.setdefault("scheme", "row_block")
            r["_device"], r["_commit"], r["_date"] = doc.get("device"), doc.get("commit"), doc.get("date")
            if ms(r) is None or "ranks" not in r:
                continue  # a refused format or a record of no time
            recs.append(r)
    return recs


def ms(r):
    """The SpMV time: `spmv_ms` (spmvkit bench --dist and spmvkit-dist since 2026-11-26), or
    `median_ms` (the records before, and the cyclic mode's)."""
    return r.get("spmv_ms", r.get("median_ms"))


def family(name):
    return re.sub(r"(_\d+)+$", "", name)


def fmt(v, spec=".3f"):
    return "" if v is None else format(v, spec)


def strong(recs):
    groups = {}
    for r in recs:
        groups.setdefault((r["matrix"], r["scheme"]), {})[r["ranks"]] = r
    series = {}
    lines = []
    for (m, scheme), by in sorted(groups.items()):
        if len(by) < 2 or min(by) != 1:
            continue
        base = by[1]
        nnz = base["nnz"]
        lines.append(f"\n### {m} ({nnz / 1e6:.0f}M nonzeros), {scheme.replace('_', ' ')}\n")
        if scheme == "row_block":
            lines.append("| GPUs | SpMV ms | speedup | efficiency | no overlap ms | speedup | "
                         "CG ms/it | speedup | BiCGSTAB ms/it | speedup |")
            lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        else:
            lines.append("| GPUs | SpMV ms | speedup | efficiency | setup ms |")
            lines.append("|---:|---:|---:|---:|---:|")
        pts = []
        for p in sorted(by):
            r = by[p]
            s = ms(base) / ms(r)
            pts.append((p, s))
            row = [str(p), fmt(ms(r), ".4f"), fmt(s, ".2f") + "x", fmt(s / p, ".0%")]
            if scheme == "row_block":
                for key in ("median_ms_no_overlap", "cg_iter_ms", "bicgstab_iter_ms"):
                    v, b = r.get(key), base.get(key)
                    row += [fmt(v, ".4f"), fmt(b / v if v and b else None, ".2f") + "x" if v and b else ""]
            else:
                row.append(fmt(r.get("setup_ms"), ".0f"))
            lines.append("| " + " | ".join(row) + " |")
        series[f"{m} {scheme.replace('_', '-')}"] = pts
        if scheme == "row_block":
            for key, label in (("cg_iter_ms", "CG iteration"), ("bicgstab_iter_ms", "BiCGSTAB iteration")):
                if all(by[p].get(key) for p in by):
                    series[f"{m} {label}"] = [(p, base[key] / by[p][key]) for p in sorted(by)]
    return lines, series


def weak(recs):
    groups = {}
    for r in recs:
        if r["scheme"] != "row_block":
            continue
        per = r["nnz"] / r["ranks"]
        if not 0.75e8 <= per <= 1.25e8:
            continue
        groups.setdefault(family(r["matrix"]), {})[r["ranks"]] = r
    lines = []
    for fam, by in sorted(groups.items()):
        if len(by) < 2 or 1 not in by:
            continue
        lines.append(f"\n### weak: {fam}, about 1e8 nonzeros a GPU\n")
        lines.append("| GPUs | matrix | nnz/GPU | SpMV ms | efficiency | BiCGSTAB ms/it | efficiency |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|")
        b = by[1]
        for p in sorted(by):
            r = by[p]
            eff = ms(b) / ms(r)
            it = r.get("bicgstab_iter_ms")
            ieff = b["bicgstab_iter_ms"] / it if it and b.get("bicgstab_iter_ms") else None
            lines.append(f"| {p} | {r['matrix']} | {r['nnz'] / p / 1e6:.0f}M | {ms(r):.4f} | "
                         f"{eff:.0%} | {fmt(it, '.4f')} | {fmt(ieff, '.0%')} |")
    return lines


def svg(path, series):
    w, h, left, bottom, top, right = 760, 440, 60, 50, 20, 300
    pmax = max((p for pts in series.values() for p, _ in pts), default=4)
    smax = max(pmax, max((s for pts in series.values() for _, s in pts), default=1))

    def xy(p, s):
        x = left + (p - 1) / max(pmax - 1, 1) * (w - left - right)
        y = h - bottom - (s - 0) / smax * (h - bottom - top)
        return x, y

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
           f'font-size="11">', f'<rect width="{w}" height="{h}" fill="white"/>']
    x0, y0 = xy(1, 0)
    x1, y1 = xy(pmax, smax)
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="black"/>')
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="black"/>')
    for p in range(1, pmax + 1):
        x, _ = xy(p, 0)
        out.append(f'<text x="{x}" y="{y0 + 15}" text-anchor="middle">{p}</text>')
    for s in range(0, int(smax) + 1):
        _, y = xy(1, s)
        out.append(f'<text x="{x0 - 8}" y="{y + 4}" text-anchor="end">{s}</text>')
    ix, iy = xy(pmax, pmax)
    out.append(f'<line x1="{x0}" y1="{xy(1, 1)[1]}" x2="{ix}" y2="{iy}" stroke="#999" stroke-dasharray="4"/>')
    out.append(f'<text x="{(x0 + x1) / 2}" y="{h - 12}" text-anchor="middle">GPUs</text>')
    out.append(f'<text x="14" y="{(y0 + y1) / 2}" transform="rotate(-90 14 {(y0 + y1) / 2})" '
               f'text-anchor="middle">speedup over 1 GPU (dashed: ideal)</text>')
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"]
    for k, (name, pts) in enumerate(sorted(series.items())):
        c = colours[k % len(colours)]
        d = " ".join(f"{xy(p, s)[0]:.1f},{xy(p, s)[1]:.1f}" for p, s in pts)
        out.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"/>')
        for p, s in pts:
            x, y = xy(p, s)
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{c}"/>')
        ly = top + 14 * k + 10
        out.append(f'<line x1="{w - right + 20}" y1="{ly - 4}" x2="{w - right + 40}" y2="{ly - 4}" '
                   f'stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{w - right + 45}" y="{ly}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    svg_path = None
    if "--svg" in argv:
        i = argv.index("--svg")
        svg_path = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if not argv:
        sys.exit(__doc__)
    recs = load(argv)
    if not recs:
        sys.exit("no records")
    r0 = recs[0]
    print(f"device: {r0['_device']} | commit {r0['_commit']} | {r0['_date']}")
    lines, series = strong(recs)
    print("\n## Strong scaling")
    print("\n".join(lines))
    print("\n## Weak scaling")
    print("\n".join(weak(recs)))
    if svg_path and series:
        svg(svg_path, series)
        print(f"\nplot: {svg_path}")


if __name__ == "__main__":
    main(sys.argv[1:])
