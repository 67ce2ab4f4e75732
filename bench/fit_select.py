#!/usr/bin/python3
"""Fits format=auto's cost model (select/) to measured bench JSON, checks it on held-out matrices.

  bench/fit_select.py [RESULTS_DIR...] [--emit select/model_defaults.cpp]

Reads every `spmvkit bench --json` file under the folders (default bench/results), keeps per
(device, precision, matrix, format) the newest ok record of a plain format (no [variant]), and
fits per format, by non-negative least squares on relative error, SpMV time =
  c0 + c1*GB (beyond L2) + c2*GB (L2-resident) + c3*npr_max/1e6 + c4*rows/1e6
     + c5*GB*cv + c6*blocks/1e6
(GB: the format's bytes per apply incl. x and y, as select/model.cpp predicts them; cv: row-length
std/mean, capped at 10; blocks: nnz/bs^2). Setup time = s0 + s1*nnz/1e6 likewise. Hold-out:
matrices whose base name (NAME of expand_bsB_NAME) hashes to 0 mod 4 are left out of the fit and
the picks on them are scored against the oracle (the fastest of the candidates measured).
Python 3 with NumPy/SciPy (Debian python3-numpy, python3-scipy).
"""
import collections, glob, gzip, json, math, re, shutil, subprocess, sys, zlib
import numpy as np
from scipy.optimize import nnls

CANDIDATES = ['csr_scalar', 'csr_vector', 'csr_balanced', 'ell', 'hyb', 'hec', 'sellp', 'csr3',
              'suraa', 'suraa_static', 'bsr', 'bsr_balanced']
L2_DEFAULT = 50 * 2**20


def load(roots):
    best = {}
    for root in roots:
        for f in sorted(glob.glob(root + '/**/*.json', recursive=True) +
                        glob.glob(root + '/**/*.json.gz', recursive=True)):
            d = json.load(gzip.open(f) if f.endswith('gz') else open(f))
            if not isinstance(d, dict) or not d.get('results') or 'spmv_ms' not in d['results'][0]:
                continue
            dev = 'H100' if 'H100' in d['device'] else 'H200' if 'H200' in d['device'] else None
            if dev is None:
                continue
            for r in d['results']:
                if r['status'] != 'ok' or '[' in r['format'] or '+' in r['matrix']:
                    continue
                k = (dev, r['precision'], r['matrix'], r['format'])
                if k not in best or d['date'] > best[k][0]:
                    best[k] = (d['date'], r, d.get('l2_bytes') or L2_DEFAULT)
    # Old records lack the row statistics: take them from a newer record of the same matrix.
    stats = {k[2]: (r['npr_max'], r['npr_variance'])
             for k, (_, r, _) in best.items() if 'npr_max' in r}
    for k, (_, r, _) in best.items():
        if 'npr_max' not in r and k[2] in stats:
            r['npr_max'], r['npr_variance'] = stats[k[2]]
    return best


def block_size(name):
    m = re.match(r'(expand|reservoir)_bs(\d+)_', name)
    return int(m.group(2)) if m else 1


def base_name(name):
    m = re.match(r'expand_bs\d+_(.*)', name)
    if m:
        return m.group(1)
    return re.sub(r'_\d+$', '', name) if name.startswith('reservoir') else name


def features(r, f, l2):
    """Mirrors select/model.cpp: the same inputs the library has at run time."""
    s = 8 if r['precision'] == 'f64' else 4
    rows, nnz, bs = r['rows'], r['nnz'], block_size(r['matrix'])
    vec = (r['rows'] + r['cols']) * s
    if f in ('bsr', 'bsr_balanced'):
        b = nnz * s + nnz / (bs * bs) * 4 + rows / bs * 4
    elif f in ('ell', 'sellp', 'hyb', 'hec'):
        b = r['bytes'] - vec  # padded formats: measured here, estimated from a sample at run time
    else:
        b = nnz * (s + 4) + rows * 4
    gb = (b + vec) * 1e-9
    res = 1.0 if gb * 1e9 < l2 else 0.0
    mean = nnz / max(1, rows)
    cv = min(10.0, math.sqrt(r.get('npr_variance', 0)) / max(mean, 1e-9))
    return [1.0, gb * (1 - res), gb * res, r.get('npr_max', mean) * 1e-6, rows * 1e-6, gb * cv,
            nnz / (bs * bs) * 1e-6]


def by_matrix(best, dev, prec):
    m = collections.defaultdict(dict)
    for (d, p, mat, f), (_, r, l2) in best.items():
        if d == dev and p == prec and f in CANDIDATES:
            m[mat][f] = (r, l2)
    return m


def fit(m, mats):
    spmv, setup = {}, {}
    for f in CANDIDATES:
        x, xs, ys = [], [], []
        for mat in mats:
            if f not in m[mat]:
                continue
            r, l2 = m[mat][f]
            t = r['spmv_ms']
            x.append([v / t for v in features(r, f, l2)])
            if r.get('setup_ms', 0) > 0:
                xs.append([1.0 / r['setup_ms'], r['nnz'] * 1e-6 / r['setup_ms']])
                ys.append(1.0)
        if len(x) >= 3:
            spmv[f] = nnls(np.array(x), np.ones(len(x)))[0]
        if len(xs) >= 3:
            setup[f] = nnls(np.array(xs), np.array(ys))[0]
    return spmv, setup


def score(m, mats, coef):
    ratios = []
    for mat in mats:
        # As select/model.cpp: no suraa (its static twin instead), BSR only on dense blocks; the
        # oracle as bench's: the fastest of our formats measured, candidates or not.
        have = {f: v for f, v in m[mat].items() if f in coef and f != 'suraa' and
                not (f.startswith('bsr') and block_size(mat) < 2)}
        if len(have) < 2:
            continue
        pred = {f: float(np.dot(coef[f], features(r, f, l2))) for f, (r, l2) in have.items()}
        pick = min(pred, key=pred.get)
        oracle = min(r['spmv_ms'] for r, _ in m[mat].values())
        ratios.append(oracle / have[pick][0]['spmv_ms'])
    if not ratios:
        return 0, 0, 0
    within = sum(1 for x in ratios if x >= 1 / 1.10) / len(ratios)
    return len(ratios), within, math.exp(-sum(map(math.log, ratios)) / len(ratios))


def main():
    args = sys.argv[1:]
    emit = None
    if '--emit' in args:
        i = args.index('--emit')
        emit = args[i + 1]
        del args[i:i + 2]
    best = load(args or ['bench/results'])
    tables = {}
    for dev in ('H100', 'H200'):
        m = by_matrix(best, dev, 'f64')
        mats = sorted(x for x in m if len(m[x]) >= 4)  # matrices with most candidates measured
        if len(mats) < 20:
            print('%s f64: %d matrices with 4+ candidates measured: no fit (%s)' %
                  (dev, len(mats), 'H100 scaled by bandwidth' if dev == 'H200' else 'none'))
            continue
        test = [x for x in mats if zlib.crc32(base_name(x).encode()) % 4 == 0]
        train = [x for x in mats if x not in test]
        held, _ = fit(m, train)
        print('%s f64 hold-out (fit on %d matrices, tested on the others): n=%d within 1.10x %.3f, '
              'geomean %.3f' % ((dev, len(train)) + score(m, test, held)))
        spmv, setup = fit(m, mats)
        print('%s f64 in-sample (fit on all): n=%d within 1.10x %.3f, geomean %.3f' %
              ((dev,) + score(m, mats, spmv)))
        m32 = by_matrix(best, dev, 'f32')
        if m32:
            print('%s f32 with the f64 fit (bytes at 4 B a value): n=%d within 1.10x %.3f, '
                  'geomean %.3f' % ((dev,) + score(m32, sorted(m32), spmv)))
        for f in CANDIDATES:
            print('  %-13s spmv %s  setup %s' % (f, ' '.join('%.4g' % v for v in spmv.get(f, [])),
                                                 ' '.join('%.4g' % v for v in setup.get(f, []))))
        tables[dev] = (spmv, setup)
    if emit:
        with open(emit, 'w') as out:
            out.write('// Generated by bench/fit_select.py from bench/results (f64 records): the\n'
                      '// cost model\'s constants (select/model.hpp). Refit:\n'
                      '// bench/fit_select.py --emit select/model_defaults.cpp\n#include "select/model.hpp"\n\n'
                      'namespace spmvkit::select {\n')
            for dev in ('H100', 'H200'):
                out.write('\nconst std::vector<FormatCost>& %s_costs() {\n'
                          '  static const std::vector<FormatCost> table = {\n' % dev.lower())
                spmv, setup = tables.get(dev, ({}, {}))
                for f in CANDIDATES:
                    if f not in spmv:
                        continue
                    c = ', '.join('%.6g' % v for v in spmv[f])
                    s = ', '.join('%.6g' % v for v in setup.get(f, [0.0, 0.0]))
                    out.write('      {"%s",\n       {%s},\n       {%s}},\n' % (f, c, s))
                out.write('  };\n  return table;\n}\n')
            out.write('\n}  // namespace spmvkit::select\n')
        if shutil.which('clang-format'):  # the house format (.clang-format)
            subprocess.run(['clang-format', '-i', emit], check=True)


if __name__ == '__main__':
    main()
