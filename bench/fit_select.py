#!/usr/bin/python3
"""Fits format=auto's cost model (select/) to measured bench JSON and replays its choices offline.

  bench/fit_select.py replay [--cli build/spmvkit] [RUN.json...]
  bench/fit_select.py fit    [--cli build/spmvkit] [--emit select/model_defaults.cpp] [RUN.json...]
  bench/fit_select.py fit --device h200 --emit select/model_defaults_h200.cpp H200RUN.json...
  bench/fit_select.py neighbours [--cli build/spmvkit] [--emit select/model_neighbours.cpp]
                                 TRAIN.json... [--check CHECK.json...]
  bench/fit_select.py neighbours --device h200 --emit select/model_neighbours_h200.cpp
                                 [--store TUNING.tsv] H200TRAIN.json... [--check H200CHECK.json...]
  bench/fit_select.py setup [--emit select/model_defaults.cpp] RUN.json... [--check CHECK.json...]

RUN.json: `spmvkit bench --json` runs with every format measured (default RUNS below: the 4x H100
run of ff7c415 of the real, csr, ell, bsr, bsr-all suites and four sixteenths of bsr-expand, which
measures 8 of our formats; its auto suite, generated matrices, is the hold-out the fit never
sees). The features come from the
library itself: `spmvkit info MATRIX --auto --json` (select::measure_features, select::choose and
select::cost_features, no GPU), so neither the replay nor the fit can diverge from the library.

replay: the library's ranking of the candidates on each matrix, walked as the auto build walks
it (a format that refused the matrix in the run, status unsupported, is passed over); the pick is
scored against the run's times: ratio = time of the pick / oracle (the fastest of our formats
measured, as bench's `oracle`), and beyond L2 whether it trails the run's best cuSPARSE record by
more than 3% (counted a suite, as bench/report.py oracle counts auto's own records). A pick with
no record in the run (or a BSR record built with another block size) is not scored and is
counted as such.

neighbours: the table of the neighbour correction (select/model.hpp): each TRAIN record's
neighbour_point and, per candidate it measured, log(measured / the library's linear prediction
`linear_ms`); a BSR time measured with another block size than the library's is left out. It
scores the corrected picks leave one matrix out on TRAIN (the table less every record of that
matrix name) and with the whole table on CHECK (runs it never saw), walking as replay does; the
Python here mirrors model.cpp's correction. --emit writes select/model_neighbours.cpp.
--store adds the matrices `spmvkit tune auto --model` measured on the device (a tuning store's
auto-model/.../f64/cuda records of a device whose name holds --device, e.g. H200): their points
and residuals as they were stored (against the same linear model), into the table as TRAIN's
records are; leave one matrix out leaves out a store entry of the same name too.

setup: per candidate, setup ms = s0 + s1 nnz/1e6 (setup_fit: least squares on log(predicted /
measured), s0, s1 >= 0), from the runs' `setup_ms` (each record's median of its builds, upload
included; CSR-3's host reordering included: a user pays it). Needs only the JSON (no CLI). Prints
each fit with the median and worst |log error| on the runs and on CHECK; --emit rewrites the setup
row of each candidate in select/model_defaults.cpp in place (the SpMV constants, and with them the
neighbour tables' residuals, unchanged) and names the runs in its header.

fit: per format, SpMV ms = c . x (x: select::cost_features, select/model.hpp) by non-negative
least squares on relative error; setup ms = s0 + s1 nnz/1e6 by setup_fit (as the setup mode). Hold-out: leave one matrix out (every record of it, in any
suite), fit on the rest, pick on it; the in-sample score fits on all. --emit writes the fit as
select/model_defaults.cpp (then rebuild, build the neighbour table again on the new
`linear_ms`, and `replay` to score the library's own picks; fit's own scores leave the
correction out).
Python 3 with NumPy/SciPy (Debian python3-numpy, python3-scipy).
"""
import collections, gzip, json, math, os, re, shutil, subprocess, sys
import numpy as np
from scipy.optimize import least_squares, nnls

# The GPU candidates of select/model.cpp (suraa is measured, in the oracle, never picked; the
# cuSPARSE peers are candidates, never in the oracle, which is the fastest of ours).
CANDIDATES = ['csr_scalar', 'csr_vector', 'csr_balanced', 'ell', 'hyb', 'hec', 'sellp', 'csr3',
              'suraa_static', 'bsr', 'bsr_balanced', 'cusparse_csr_alg1', 'cusparse_coo']
OURS = [c for c in CANDIDATES if not c.startswith('cusparse')] + ['suraa']
R = 'bench/results/'
# (the large ones gzipped in the tree: whichever of NAME.json and NAME.json.gz is there)
RUNS = [p + '.gz' if os.path.exists(p + '.gz') else p
        for p in (R + '2026-11-27-h100x4-ff7c415/bench_%s.json' % s
                  for s in ('real', 'csr', 'ell', 'bsr', 'bsr-all_1of2', 'bsr-all_2of2',
                            'bsr-expand_1of16', 'bsr-expand_5of16', 'bsr-expand_9of16',
                            'bsr-expand_13of16'))]


def suite_of(path):
    m = re.search(r'bench_([a-z]+(?:-[a-z]+)?)', os.path.basename(path))
    return m.group(1) if m else os.path.basename(path)


def load(paths):
    """{(suite, matrix): {'records': {format: record}, 'device', 'l2', 'commit'}}; a matrix a
    second file measures again is a second record, its suite named suite@commit."""
    runs, source = {}, {}
    for p in paths:
        d = json.load(gzip.open(p, 'rt') if p.endswith('.gz') else open(p))
        for r in d['results']:
            key = (suite_of(p), r['matrix'])
            if source.setdefault(key, p) != p:  # a second run of the matrix: its own record
                key = ('%s@%s' % (key[0], d['commit']), key[1])
                source.setdefault(key, p)
            run = runs.setdefault(key, {
                'records': {}, 'device': d['device'], 'l2': d.get('l2_bytes') or 50 * 2**20,
                'commit': d['commit'], 'precision': r['precision']})
            run['records'][r['format']] = r
    return runs


def features(cli, matrix, run, cache):
    """The library's view of `matrix`: `spmvkit info --auto --json`, cached per binary."""
    stamp = '%s@%d' % (cli, os.stat(cli).st_mtime_ns)
    key = '%s|%s|%s|%d' % (matrix, run['device'], run['precision'], run['l2'])
    if cache.get(key, {}).get('stamp') != stamp:
        # An empty tuning store: the shipped model's ranking, not this machine's measurements.
        env = dict(os.environ, SPMVKIT_TUNING_FILE=os.devnull)
        out = subprocess.run([cli, 'info', matrix, '--auto', '--json', '--device', run['device'],
                              '--l2', str(run['l2']), '--precision', run['precision']],
                             check=True, capture_output=True, text=True, env=env).stdout
        cache[key] = {'stamp': stamp, 'info': json.loads(out)}
    return cache[key]['info']


def oracle_ms(run):
    return min(r['spmv_ms'] for f, r in run['records'].items()
               if f in OURS and r['status'] == 'ok')


def other_block_size(params, record):
    """Whether `record` was built with another block size than `params` asks for."""
    bs = re.search(r'block_size=(\d+)', params)
    used = re.search(r'\bbs=(\d+)', record['details'])
    return bool(bs and used and bs.group(1) != used.group(1))


def walk(ranked, run):
    """The auto build's walk: the first candidate that did not refuse. (format, record) or
    (format, None) when the run has no usable record of it."""
    for c in ranked:
        r = run['records'].get(c['format'])
        if r is not None and r['status'].startswith('unsupported'):
            continue  # refused in the run: the build passes over it too
        if r is None or r['status'] != 'ok':
            return c['format'], None
        if other_block_size(c['params'], r):
            return c['format'], None
        return c['format'], r
    return None, None


def summary(ratios, unscored):
    if not ratios:
        return 'n=0 (%d not measured)' % unscored
    n = len(ratios)
    return ('n=%d, within 1.10x %.1f%%, geomean %.3fx, worst %.2fx%s' %
            (n, 100.0 * sum(x <= 1.10 for x in ratios) / n,
             math.exp(sum(map(math.log, ratios)) / n), max(ratios),
             ', %d picks not measured' % unscored if unscored else ''))


def by_suite(scored):
    out = collections.defaultdict(lambda: ([], [0]))
    for (suite, _), ratio in scored.items():
        if ratio is None:
            out[suite][1][0] += 1
        else:
            out[suite][0].append(ratio)
    big = [x for (suite, _), x in scored.items() if suite in ('csr', 'ell', 'bsr')]
    lines = {s: summary(r, u[0]) for s, (r, u) in sorted(out.items())}
    if big:  # the large-matrix suites together, as bench/report.py oracle prints them
        lines['csr+ell+bsr'] = summary([x for x in big if x], sum(x is None for x in big))
    return lines


def behind_cusparse(r):
    """Whether pick record `r` is more than 3% slower than the run's best cuSPARSE algorithm on a
    matrix beyond L2 (issue 25's bound, from the record's own ratio_vs_cusparse as bench/report.py
    oracle counts it); None where the record fits L2, has no cuSPARSE ratio, or there is none."""
    if r is None or r.get('l2_resident', True) or not r.get('ratio_vs_cusparse'):
        return None
    return r['ratio_vs_cusparse'] < 1 / 1.03


def replay(runs, infos):
    scored, rows, behind = {}, [], {}
    for key, run in sorted(runs.items()):
        pick, r = walk(infos[key]['ranked'], run)
        scored[key] = r['spmv_ms'] / oracle_ms(run) if r else None
        behind[key] = behind_cusparse(r)
        rec = run['records'].get('auto') or run['records'].get('auto[tune=0]')
        device_pick = re.match(r'chosen=(\w+)', rec['details']).group(1) if rec and rec.get(
            'details', '').startswith('chosen=') else '-'
        rows.append((key, pick, scored[key], device_pick))
    return scored, rows, behind


def setup_points(runs, keys, f):
    """(nnz/1e6, setup ms) of format f's measured setups in the runs' records `keys`."""
    out = []
    for k in keys:
        r = runs[k]['records'].get(f)
        if r is not None and r['status'] == 'ok' and r.get('setup_ms', 0) > 0:
            out.append((r['nnz'] * 1e-6, r['setup_ms']))
    return out


def setup_fit(points):
    """(s0, s1) of setup ms = s0 + s1 nnz/1e6, least squares on log(predicted / measured): a
    setup spans 0.1 ms to seconds, and a relative fit of that span is one its largest or
    smallest records decide. None under 3 points."""
    if len(points) < 3:
        return None
    n, t = np.array(points).T
    start = nnls(np.stack([1 / t, n / t], axis=1), np.ones(len(t)))[0]
    s = least_squares(lambda c: np.log((c[0] + c[1] * n) / t), np.maximum(start, 1e-3),
                      bounds=([1e-6, 0], [np.inf, np.inf]))
    return s.x


def setup_errors(c, points):
    """log(predicted / measured) of each point."""
    return [math.log((c[0] + c[1] * n) / t) for n, t in points]


def fit(runs, infos, keys):
    spmv, setup = {}, {}
    for f in CANDIDATES:
        x = []
        for k in keys:
            r = runs[k]['records'].get(f)
            xf = infos[k]['x'].get(f)
            if r is None or xf is None or r['status'] != 'ok':
                continue
            x.append([v / r['spmv_ms'] for v in xf])
        if len(x) >= 3:
            spmv[f] = nnls(np.array(x), np.ones(len(x)))[0]
        c = setup_fit(setup_points(runs, keys, f))
        if c is not None:
            setup[f] = c
    return spmv, setup


def setup_only(runs, train_keys, check_keys, emit_path, sources):
    """The setup mode: fit, print, and --emit the setup rows into model_defaults.cpp."""
    def line(errs):
        if not errs:
            return '-'
        a = np.abs(errs)
        return 'n=%d, median |log err| %.2f (x%.2f), worst %.2f (x%.1f)' % (
            len(a), np.median(a), math.exp(np.median(a)), a.max(), math.exp(a.max()))
    fits = {}
    print('setup ms = s0 + s1 nnz/1e6, fitted on %s' % ', '.join(sources))
    for f in CANDIDATES:
        points = setup_points(runs, train_keys, f)
        c = setup_fit(points)
        if c is None:
            continue
        fits[f] = c
        print('  %-18s %.4g + %.4g nnz/1e6' % (f, c[0], c[1]))
        print('    fit    %s' % line(setup_errors(c, points)))
        if check_keys:
            print('    check  %s' % line(setup_errors(c, setup_points(runs, check_keys, f))))
    if emit_path:
        text = open(emit_path).read()
        for f, c in fits.items():
            row = re.compile(r'(\{"%s",\s*\{[^}]*\},\s*)\{[^}]*\}' % re.escape(f))
            if not row.search(text):
                sys.exit('%s: no row of %s' % (emit_path, f))
            text = row.sub(lambda m: m.group(1) + '{%.6g, %.6g}' % tuple(c), text, count=1)
        head = ('// Setup rows (ms = s0 + s1 nnz/1e6: the upload, the build and CSR-3\'s host\n'
                '// reordering, as the runs measured them) refitted by fit_select.py setup from:\n')
        text = re.sub(r'// Setup rows \(.*\n.*\n(?://   .*\n)*', '', text)
        at = text.index('#include')
        text = text[:at] + head + ''.join('//   %s\n' % s for s in sources) + text[at:]
        open(emit_path, 'w').write(text)
        if shutil.which('clang-format'):
            subprocess.run(['clang-format', '-i', emit_path], check=True)


def pick_with(spmv, info, run):
    """The library's walk with constants `spmv` (its x, its candidate set): (pick, ratio)."""
    ranked = sorted((c for c in info['ranked'] if c['format'] in spmv),
                    key=lambda c: float(np.dot(spmv[c['format']], c['x'])))
    f, r = walk(ranked, run)
    return f, (r['spmv_ms'] / oracle_ms(run) if r else None)


def emit(path, spmv, setup, device='h100', sources=()):
    """select/model_defaults.cpp (h100_costs) or, device h200, select/model_defaults_h200.cpp."""
    name = 'H200' if device == 'h200' else 'H100'
    with open(path, 'w') as out:
        out.write('// Generated by bench/fit_select.py from the %s runs it names (f64): the cost\n'
                  '// model\'s constants (select/model.hpp). Refit:\n'
                  '// bench/fit_select.py fit%s --emit %s RUN.json...\n' %
                  (name, ' --device h200' if device == 'h200' else '', os.path.relpath(path)))
        for src in sources:
            out.write('//   %s\n' % src)
        out.write('#include "select/model.hpp"\n\nnamespace spmvkit::select {\n')
        out.write('\nconst std::vector<FormatCost>& %s_costs() {\n'
                  '  static const std::vector<FormatCost> table = {\n' % device)
        for f in CANDIDATES:
            if f in spmv:
                out.write('      {"%s",\n       {%s},\n       {%s}},\n' %
                          (f, ', '.join('%.6g' % v for v in spmv[f]),
                           ', '.join('%.6g' % v for v in setup.get(f, [0.0, 0.0]))))
        out.write('  };\n  return table;\n}\n\n}  // namespace spmvkit::select\n')
    if shutil.which('clang-format'):  # the house format (.clang-format)
        subprocess.run(['clang-format', '-i', path], check=True)


K_NEIGHBOURS = 9  # select/model.hpp kNeighbours
# select/model.cpp stand_in: whose residual stands in where a format refused a table matrix
STAND_IN = {'ell': 'sellp'}


def neighbour_point(info):
    """select::neighbour_point."""
    f = info['features']
    return np.array([math.log(max(1.0, f['rows'])), math.log(max(1.0, f['nnz'])),
                     math.log(max(0.01, f['row_mean'])), math.log(f['cv'] + 0.05),
                     math.log(max(1.0, f['row_max'])), math.log(max(1, f['block_size'])),
                     math.log(max(0.05, f['cols'] * (4 if info['precision'] == 'f32' else 8) /
                                  f['l2_bytes']))])


def linear_ms(info):
    """The library's linear prediction per ranked candidate (spmv_ms before linear_ms existed,
    when there was no correction): {format: (ms, params)}."""
    return {c['format']: (c.get('linear_ms', c['spmv_ms']), c['params']) for c in info['ranked']}


def residuals(run, info):
    """{format: log(measured / linear)} for the candidates the run measured (walk's rules)."""
    out = {}
    for f, (ms, params) in linear_ms(info).items():
        r = run['records'].get(f)
        if r is None or r['status'] != 'ok' or ms <= 0 or other_block_size(params, r):
            continue
        out[f] = math.log(r['spmv_ms'] / ms)
    return out


def corrected_pick(table, scale, info, run, skip=None):
    """model.cpp's choose() with the table (less the entries of matrix `skip`), then walk."""
    z = neighbour_point(info)
    rows = [(float((((z - p) / scale) ** 2).sum()), i) for i, (m, p, _) in enumerate(table)
            if m != skip]
    near = sorted(rows)[:K_NEIGHBOURS]
    lin = linear_ms(info)

    def pred(f):
        num = den = 0.0
        for d2, i in near:
            r = table[i][2].get(f, table[i][2].get(STAND_IN.get(f)))
            if r is not None:
                w = math.exp(-d2)
                num, den = num + w * r, den + w
        return lin[f][0] * (math.exp(num / (den + 1e-3)) if den > 0 else 1.0)
    ranked = sorted(info['ranked'], key=lambda c: pred(c['format']))
    f, r = walk(ranked, run)
    return f, (r['spmv_ms'] / oracle_ms(run) if r else None)


def emit_neighbours(path, table, scale, sources, device='h100'):
    cols = CANDIDATES
    head = ['// Generated by bench/fit_select.py neighbours%s from the %s runs (f64):' % (
        ' --device h200' if device == 'h200' else '', device.upper())]
    head += ['//   ' + s for s in sources]
    head += ["// the neighbour correction's table (select/model.hpp): per matrix its",
             '// neighbour_point and log(measured / linear prediction) per format (n: not',
             '// measured).',
             '#include <limits>', '', '#include "select/model.hpp"', '',
             'namespace spmvkit::select {', '', 'namespace {',
             'constexpr double n = std::numeric_limits<double>::quiet_NaN();',
             '}  // namespace', '', 'const NeighbourTable& %s_neighbours() {' % device,
             '  static const NeighbourTable table = {',
             '      {%s},' % ', '.join('%.6g' % v for v in scale),
             '      {%s},' % ', '.join('"%s"' % f for f in cols), '      {']
    for m, p, res in table:
        head.append('          {"%s", {%s}, {%s}},' % (
            m, ', '.join('%.6g' % v for v in p),
            ', '.join('%.4g' % res[f] if f in res else 'n' for f in cols)))
    head += ['      }};', '  return table;', '}', '', '}  // namespace spmvkit::select', '']
    with open(path, 'w') as out:
        out.write('\n'.join(head))
    if shutil.which('clang-format'):
        subprocess.run(['clang-format', '-i', path], check=True)


def store_entries(path, device):
    """The table entries of a tuning store's `tune auto --model` records (select/measured.cpp):
    (matrix, point, {format: residual}) for device names holding `device`, f64, cuda; the last
    record of a key wins, as in the store."""
    records = {}
    for line in open(path):
        parts = line.rstrip('\n').split('\t')
        if (len(parts) == 3 and device.lower() in parts[0].lower() and
                parts[1].startswith('auto-model/') and parts[1].endswith('/f64/cuda')):
            records[(parts[0], parts[1])] = parts[2]
    out = []
    for value in records.values():
        fields = dict(f.split('=', 1) for f in value.split(';') if '=' in f)
        point = np.array([float(v) for v in fields['point'].split(',')])
        res = {f: float(r) for f, r in (i.split(':') for i in fields['residual'].split(',') if i)
               if f in CANDIDATES}
        if len(point) == 7 and res:
            out.append((fields['matrix'], point, res))
    return out


def neighbours(runs, infos, train_keys, check_keys, emit_path, sources, device='h100',
               stores=()):
    table = [(k[1], neighbour_point(infos[k]), residuals(runs[k], infos[k]))
             for k in sorted(train_keys)]
    for path in stores:
        table += store_entries(path, device)
    table = [t for t in table if t[2]]
    scale = np.array([t[1] for t in table]).std(axis=0) + 1e-9
    print('neighbour table: %d matrix records of %s' % (len(table), ', '.join(sources)))
    loo = {k: corrected_pick(table, scale, infos[k], runs[k], skip=k[1])[1] for k in train_keys}
    for s, line in by_suite(loo).items():
        print('  leave-one-out  %-5s %s' % (s, line))
    if check_keys:
        chk = {k: corrected_pick(table, scale, infos[k], runs[k])[1] for k in check_keys}
        for s, line in by_suite(chk).items():
            print('  check          %-5s %s' % (s, line))
    if emit_path:
        emit_neighbours(emit_path, table, scale, sources, device)


def main():
    args = sys.argv[1:]
    if not args or args[0] not in ('replay', 'fit', 'neighbours', 'setup'):
        sys.exit(__doc__)
    mode, args = args[0], args[1:]
    opts = {'--cli': 'build/spmvkit', '--emit': None, '--device': 'h100', '--store': None}
    for o in opts:
        if o in args:
            i = args.index(o)
            opts[o] = args[i + 1]
            del args[i:i + 2]
    check = []
    if '--check' in args:
        i = args.index('--check')
        args, check = args[:i], args[i + 1:]
    runs = load(args or RUNS)
    check_runs = load(check)
    train_keys = sorted(runs)
    for k, v in check_runs.items():
        runs[('check ' + k[0], k[1])] = v
    if mode == 'setup':
        setup_only(runs, train_keys, sorted(set(runs) - set(train_keys)), opts['--emit'],
                   [os.path.relpath(p) for p in args or RUNS])
        return
    cache_path = os.path.join(os.path.dirname(opts['--cli']), 'fit_select_cache.json')
    cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}
    infos = {}
    for key, run in sorted(runs.items()):
        print('features: %s %s' % key, file=sys.stderr)
        infos[key] = features(opts['--cli'], key[1], run, cache)
    json.dump(cache, open(cache_path, 'w'))
    commits = sorted(set(r['commit'] for r in runs.values()))
    if mode == 'neighbours':
        stores = [opts['--store']] if opts['--store'] else []
        neighbours(runs, infos, train_keys, sorted(set(runs) - set(train_keys)), opts['--emit'],
                   [os.path.relpath(p) for p in (args or RUNS) + stores], opts['--device'],
                   stores)
        return
    if mode == 'replay':
        scored, rows, behind = replay(runs, infos)
        print('| suite | matrix | pick | time / oracle | device\'s pick |\n|---|---|---|---:|---|')
        for (suite, m), pick, ratio, dev in rows:
            print('| %s | %s | %s | %s | %s |' % (suite, m, pick,
                                                 '%.3f' % ratio if ratio else 'not measured', dev))
        print('\nreplay of the library\'s picks on the runs of %s:' % ', '.join(commits))
        counted = collections.defaultdict(list)
        for (suite, _), b in behind.items():
            if b is not None:
                counted[suite].append(b)
        for s, line in by_suite(scored).items():
            late = counted.get(s)
            print('  %-5s %s%s' % (s, line, ', beyond L2 behind cuSPARSE by > 3%%: %d of %d' %
                                   (sum(late), len(late)) if late else ''))
        return
    keys = sorted(runs)
    spmv, setup = fit(runs, infos, keys)
    inside = {k: pick_with(spmv, infos[k], runs[k]) for k in keys}
    held = {}
    for name in sorted(set(m for _, m in keys)):  # leave one matrix out
        train = [k for k in keys if k[1] != name]
        part, _ = fit(runs, infos, train)
        for k in keys:
            if k[1] == name:
                held[k] = pick_with(part, infos[k], runs[k])
    print('fit on the runs of %s (%d matrix records):' % (', '.join(commits), len(keys)))
    for s, line in by_suite({k: v[1] for k, v in inside.items()}).items():
        print('  in-sample      %-5s %s' % (s, line))
    for s, line in by_suite({k: v[1] for k, v in held.items()}).items():
        print('  leave-one-out  %-5s %s' % (s, line))
    for name, picks in (('in-sample', inside), ('leave-one-out', held)):
        print('  %s, beyond 1.10x: %s' % (name, ', '.join(
            '%s %s %.2fx' % (k[1], f, x) for k, (f, x) in sorted(picks.items()) if x and x > 1.10)))
    for f in CANDIDATES:
        print('  %-13s spmv %s  setup %s' % (f, ' '.join('%.4g' % v for v in spmv.get(f, [])),
                                             ' '.join('%.4g' % v for v in setup.get(f, []))))
    if opts['--emit']:
        emit(opts['--emit'], spmv, setup, opts['--device'],
             [os.path.relpath(p) for p in args or RUNS])


if __name__ == '__main__':
    main()
