import json, sys, collections
# setup ms per (matrix, format) of several bench runs, with each run's ratio to cuSPARSE CSR ALG1.
out = sys.argv[1]; tags = sys.argv[2:]
rows = collections.OrderedDict()
for t in tags:
    d = json.load(open('%s/bench_%s.json' % (out, t)))
    ref = {r['matrix']: r['setup_ms'] for r in d['results'] if r['format'] == 'cusparse_csr_alg1'}
    for r in d['results']:
        if r['format'].startswith('cusparse') or r['format'] == 'eigen_csr': continue
        if 'setup_ms' not in r or r.get('error'): continue
        rows.setdefault((r['matrix'], r['format']), {})[t] = (r['setup_ms'], r['setup_ms'] / ref[r['matrix']] if ref.get(r['matrix']) else 0)
print('%-20s %-14s ' % ('matrix', 'format') + ' '.join('%13s' % t for t in tags))
for (m, f), v in rows.items():
    print('%-20s %-14s ' % (m[:20], f) + ' '.join('%6.3f %5.2fx' % v[t] if t in v else '%13s' % '-' for t in tags))
refs = {}
for t in tags:
    d = json.load(open('%s/bench_%s.json' % (out, t)))
    refs[t] = ' '.join('%s=%.3f' % (r['matrix'][:8], r['setup_ms']) for r in d['results'] if r['format'] == 'cusparse_csr_alg1')
for t in tags: print('cusparse', t, refs[t])
