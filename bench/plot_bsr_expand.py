#!/usr/bin/env python3
"""Plots and tables for the BSR paper's block-expansion experiment (section 6.3, figures 10-19).

Reads the JSON of `spmvkit bench bsr-expand --json F` (and of `bsr-balance`; several files,
e.g. the parts of a split run, are merged) and writes into OUTDIR:

  <matrix>.svg  GFLOP/s against the block size, one line per format: our bsr, the best of our
                CSR-family formats on the expanded CSR, cusparse_bsr, cusparse_bsrmv (and
                bsr_balanced, dashed, where measured)
  summary.md    per matrix: the geometric mean over bs of bsr / best cuSPARSE BSR, the block
                sizes where bsr beats the CSR family, skipped block sizes; and balanced against
                plain BSR wherever both were measured

Standard library only (the SVG is written by hand), so it runs wherever the JSON is.

  python3 bench/plot_bsr_expand.py OUTDIR RESULTS.json [MORE.json ...]
"""
import argparse
import html
import json
import gzip
import math
import os
import re
import sys

EXPAND = re.compile(r"^expand_bs(\d+)_(.+)$")
# Our CSR-family formats: each runs on the expanded matrix as plain CSR.
CSR_FAMILY = ("csr_scalar", "csr_vector", "csr_balanced", "ell", "hyb", "hec", "sellp", "csr3",
              "suraa", "suraa_static")
CUSPARSE_BSR = ("cusparse_bsr", "cusparse_bsrmv")
SERIES = (  # key, legend, colour, dashed
    ("bsr", "bsr (ours)", "#d62728", False),
    ("bsr_balanced", "bsr_balanced (ours)", "#ff9896", True),
    ("csr_best", "best of our CSR family", "#1f77b4", False),
    ("cusparse_bsr", "cuSPARSE BSR (SpMV)", "#2ca02c", False),
    ("cusparse_bsrmv", "cuSPARSE bsrmv", "#9467bd", False),
)


def load(paths):
    """Merged records and the run headers (device, precision, ...) of every file."""
    records, headers = [], []
    for path in paths:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            j = json.load(f)
        headers.append({k: v for k, v in j.items() if k != "results"})
        records.extend(j["results"])
    return records, headers


def collect(records):
    """{matrix: {bs: {format: record}}} for expand_bsB_NAME records (reordering suffixes kept
    in the matrix name)."""
    out = {}
    for r in records:
        m = EXPAND.match(r["matrix"])
        if not m:
            continue
        bs, name = int(m.group(1)), m.group(2)
        fmt = r["format"]
        if fmt == "bsr[balanced=auto]":  # bsr-balance runs bsr as variants
            fmt = "bsr"
        out.setdefault(name, {}).setdefault(bs, {})[fmt] = r
    return out


def ok(rec):
    return rec is not None and rec.get("status") == "ok" and rec.get("gflops", 0) > 0


def series_at(formats):
    """{series key: (gflops, format name)} at one block size."""
    s = {}
    for key in ("bsr", "bsr_balanced", "cusparse_bsr", "cusparse_bsrmv"):
        if ok(formats.get(key)):
            s[key] = (formats[key]["gflops"], key)
    csr = [(formats[f]["gflops"], f) for f in CSR_FAMILY if ok(formats.get(f))]
    if csr:
        s["csr_best"] = max(csr)
    return s


def nice_step(top):
    """A 1-2-5 tick step giving 4..8 ticks up to `top`."""
    raw = top / 6.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def svg_plot(title, subtitle, points, path):
    """points: {series key: [(bs, gflops), ...]}: a line chart, GFLOP/s against bs."""
    w, h = 720, 440
    left, right, top, bottom = 70, 200, 50, 50
    pw, ph = w - left - right, h - top - bottom
    ymax = max([g for pts in points.values() for _, g in pts] + [1e-9])
    step = nice_step(ymax * 1.05)
    ytop = step * math.ceil(ymax * 1.05 / step)
    xmin, xmax = 0, 33

    def px(bs):
        return left + (bs - xmin) / (xmax - xmin) * pw

    def py(g):
        return top + ph - g / ytop * ph

    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15" font-weight="bold">{e(title)}</text>',
           f'<text x="{left}" y="39" font-size="11" fill="#555">{e(subtitle)}</text>']
    # Grid, ticks, axes.
    y = 0.0
    while y <= ytop + 1e-9:
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + pw}" y2="{py(y):.1f}" '
                   f'stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
        y += step
    for bs in (1, 4, 8, 12, 16, 20, 24, 28, 32):
        out.append(f'<line x1="{px(bs):.1f}" y1="{top + ph}" x2="{px(bs):.1f}" '
                   f'y2="{top + ph + 5}" stroke="black"/>')
        out.append(f'<text x="{px(bs):.1f}" y="{top + ph + 18}" text-anchor="middle">{bs}</text>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" '
               f'stroke="black"/>')
    out.append(f'<text x="{left + pw / 2}" y="{h - 10}" text-anchor="middle">block size bs</text>')
    out.append(f'<text transform="translate(18,{top + ph / 2}) rotate(-90)" '
               f'text-anchor="middle">GFLOP/s (2 nnz / time)</text>')
    # Lines and legend.
    row = 0
    for key, legend, colour, dashed in SERIES:
        pts = sorted(points.get(key, []))
        if not pts:
            continue
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        coords = " ".join(f"{px(b):.1f},{py(g):.1f}" for b, g in pts)
        out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" '
                   f'stroke-width="2"{dash}/>')
        for b, g in pts:
            out.append(f'<circle cx="{px(b):.1f}" cy="{py(g):.1f}" r="2.5" fill="{colour}"/>')
        ly = top + 10 + 20 * row
        out.append(f'<line x1="{left + pw + 15}" y1="{ly}" x2="{left + pw + 45}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{left + pw + 52}" y="{ly + 4}">{e(legend)}</text>')
        row += 1
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def ranges(values):
    """[1, 2, 3, 5, 7, 8] -> '1-3, 5, 7-8'."""
    values = sorted(values)
    parts, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        parts.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
        i = j + 1
    return ", ".join(parts) if parts else "-"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}x"


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)


def balanced_rows(data):
    """(matrix, bs, plain ms, balanced ms, auto's choice) wherever plain and balanced BSR were
    both measured: plain is bsr[balanced=off] (bsr-balance suite), else bsr when it chose not
    to balance."""
    rows = []
    for name in sorted(data, key=str.lower):
        for bs in sorted(data[name]):
            f = data[name][bs]
            bal = f.get("bsr_balanced")
            plain = f.get("bsr[balanced=off]")
            auto = f.get("bsr")
            auto_choice = None
            if ok(auto):
                auto_choice = "balanced" if "balanced=1" in auto.get("details", "") else "plain"
            if not ok(plain) and auto_choice == "plain":
                plain = auto
            if ok(plain) and ok(bal):
                rows.append((name, bs, plain["spmv_ms"], bal["spmv_ms"], auto_choice,
                             bal.get("details", "")))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("json", nargs="+")
    a = ap.parse_args()
    records, headers = load(a.json)
    data = collect(records)
    if not data:
        sys.exit("no expand_bsB_NAME records in " + ", ".join(a.json))
    os.makedirs(a.outdir, exist_ok=True)
    h0 = headers[0]
    runs = "; ".join(f"part {h.get('part', '1/1')}, {h.get('reps', '?')} timed after "
                     f"{h.get('warmup', '?')} warm-up" for h in headers)
    md = [f"# BSR block-expansion experiment ({h0.get('device', '?')})", "",
          f"- precision {h0.get('precision', '?')}, backend {h0.get('backend', '?')}, commit "
          f"{h0.get('commit', '?')}, {h0.get('date', '?')}",
          f"- read-bandwidth ceiling {h0.get('ceiling_gbs', 0):.1f} GB/s, L2 "
          f"{h0.get('l2_bytes', 0) / 2**20:.0f} MiB; runs: {runs}",
          f"- sources: {', '.join(os.path.basename(p) for p in a.json)}",
          "- bsr / cuSPARSE: per block size, our `bsr` (automatic kernel and balancing) against "
          "the faster of cusparse_bsr and cusparse_bsrmv; geometric mean over the block sizes "
          "where both ran",
          "- bsr beats CSR family: block sizes where `bsr` is faster than every CSR-family "
          "format measured on the expanded CSR (" + ", ".join(CSR_FAMILY) + ")",
          "- L2-resident: block sizes whose `bsr` data and vectors fit the last-level cache "
          "(timings there are not DRAM-bound)", "",
          "| matrix | bs measured | bsr / cuSPARSE (geomean) | min .. max | bsr beats CSR family "
          "at bs | L2-resident bs | skipped bs |",
          "|---|---|---|---|---|---|---|"]
    all_ratios = []
    for name in sorted(data, key=str.lower):
        per_bs = data[name]
        points, ratios, beats, measured, l2, skipped = {}, [], [], [], [], []
        for bs in sorted(per_bs):
            f = per_bs[bs]
            if "-" in f and f["-"]["status"].startswith("skipped"):
                skipped.append(bs)
                continue
            s = series_at(f)
            for key, (g, _) in s.items():
                points.setdefault(key, []).append((bs, g))
            if "bsr" not in s:
                continue
            measured.append(bs)
            if f["bsr"].get("l2_resident"):
                l2.append(bs)
            peers = [s[k][0] for k in CUSPARSE_BSR if k in s]
            if peers:
                ratios.append(s["bsr"][0] / max(peers))
            if "csr_best" in s and s["bsr"][0] > s["csr_best"][0]:
                beats.append(bs)
        all_ratios.extend(ratios)
        sub = f"block-expanded, {h0.get('precision', '?')}, {h0.get('device', '?')}"
        if skipped:
            sub += f"; bs {ranges(skipped)} skipped (expanded nnz over the cap)"
        svg_plot(name, sub, points, os.path.join(a.outdir, safe_name(name) + ".svg"))
        g = geomean(ratios)
        md.append(f"| [{name}]({safe_name(name)}.svg) | {ranges(measured)} | {fmt_ratio(g)} | "
                  f"{fmt_ratio(min(ratios) if ratios else None)} .. "
                  f"{fmt_ratio(max(ratios) if ratios else None)} | {ranges(beats)} | "
                  f"{ranges(l2)} | {ranges(skipped)} |")
    md += ["", f"Geometric mean of bsr / best cuSPARSE BSR over all matrices and block sizes: "
               f"{fmt_ratio(geomean(all_ratios))} ({len(all_ratios)} points).", ""]

    rows = balanced_rows(data)
    md += ["## Balanced against plain BSR (paper 5.5)", "",
           "plain: `bsr[balanced=off]` (suite bsr-balance), else `bsr` where it "
           "chose not to balance; speedup = plain ms / balanced ms; auto: what `bsr` chose "
           "(its rule: bsr_balance_pays).", ""]
    if rows:
        md += ["| matrix | bs | plain ms | balanced ms | speedup | auto | auto picked the faster "
               "| balanced details |", "|---|---|---|---|---|---|---|---|"]
        for name, bs, p, b, auto, det in rows:
            faster = "balanced" if b < p else "plain"
            picked = "-" if auto is None else ("yes" if auto == faster else "no")
            seg = ",".join(x for x in det.split(",")
                           if x.startswith(("lambda=", "segments=", "split_rows=")))
            md.append(f"| {name} | {bs} | {p:.4f} | {b:.4f} | {p / b:.2f}x | {auto or '-'} | "
                      f"{picked} | {seg} |")
    else:
        md.append("(no matrix with both plain and balanced BSR measured)")
    with open(os.path.join(a.outdir, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"wrote {len(data)} plots and summary.md to {a.outdir}")


if __name__ == "__main__":
    main()
