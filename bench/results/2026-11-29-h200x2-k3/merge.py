#!/usr/bin/python3
"""bsr-expand runs with their BSR records at K3's block sizes (13 and up on the H200) replaced by
U3b's (213fdad: bsr_k3_lambda), so that the H200 neighbour table and its check see BSR as it
builds now; the other formats' records, and BSR's at smaller block sizes, are the run's own.
Matrices at K3's block sizes U3b did not measure are dropped (their BSR records predate the rule).
Writes merged/NAME.json.gz beside this file; each file's `commit` stays the run's."""
import gzip, json, os, re
HERE = os.path.dirname(os.path.abspath(__file__))
R = os.path.join(HERE, '..')
NEW = {}
for f in ('table', 'check'):
    for r in json.load(gzip.open(os.path.join(HERE, 'U3b', f + '.json.gz')))['results']:
        NEW[(r['matrix'], r['format'])] = r
RUNS = {
    'table_2': '2026-11-27-h200x4-564d4bd/bench_bsr-expand_2of16.json.gz',
    'table_6': '2026-11-27-h200x4-564d4bd/bench_bsr-expand_6of16.json.gz',
    'table_6_U1': '2026-11-29-h200x2-k3/U1/bench_bsr-expand_6of16.json.gz',
    'table_10': '2026-11-27-h200x4-564d4bd/bench_bsr-expand_10of16.json.gz',
    'table_14': '2026-11-27-h200x4-564d4bd/bench_bsr-expand_14of16.json.gz',
    'check_3': '2026-11-29-h200x4-odd/T4/bench_bsr-expand_3of16.json.gz',
    'check_4': '2026-11-29-h200x4-odd/T4/bench_bsr-expand_4of16.json.gz',
    'check_5': '2026-11-29-h200x4-odd/T1/bench_bsr-expand_5of16.json.gz',
    'check_7': '2026-11-29-h200x4-odd/T3/bench_bsr-expand_7of16.json.gz',
    'check_8': '2026-11-29-h200x4-odd/T6/bench_bsr-expand_8of16.json.gz',
    'check_9': '2026-11-29-h200x2-k3/U1/bench_bsr-expand_9of16.json.gz',
    'check_11': '2026-11-29-h200x4-odd/T3/bench_bsr-expand_11of16.json.gz',
    'check_12': '2026-11-29-h200x4-odd/T3/bench_bsr-expand_12of16.json.gz',
    'check_13': '2026-11-29-h200x2-k3/U2/bench_bsr-expand_13of16.json.gz',
}
os.makedirs(os.path.join(HERE, 'merged'), exist_ok=True)
for name, path in RUNS.items():
    d = json.load(gzip.open(os.path.join(R, path)))
    out, replaced, dropped = [], 0, set()
    for r in d['results']:
        m = re.match(r'expand_bs(\d+)_', r['matrix'])
        if m and int(m.group(1)) >= 13:
            if not any((r['matrix'], f) in NEW for f in ('bsr', 'bsr_balanced')):
                dropped.add(r['matrix'])
                continue
            if (r['matrix'], r['format']) in NEW:
                r = NEW[(r['matrix'], r['format'])]
                replaced += 1
        out.append(r)
    d['results'] = out
    with gzip.open(os.path.join(HERE, 'merged', 'bench_bsr-expand_%s.json.gz' % name), 'wt') as f:
        json.dump(d, f)
    print('%s: %d records, %d BSR records replaced, %d matrices dropped' %
          (name, len(out), replaced, len(dropped)))
