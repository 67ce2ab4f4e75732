import sys, re, statistics, collections
# Summarises SPMVKIT_BUILD_PROFILE=trace output: per matrix (in order), per build, median phases.
mats = sys.argv[2].split(',') if len(sys.argv) > 2 else ['bcsstk13', 'rajat01', 'Groebner_id2003_aug']
lines = [l.split() for l in open(sys.argv[1]) if l.startswith('spmvkit build-trace')]
builds = []; cur = []
for p in lines:
    name = p[2]
    if p[3] == 'end':
        builds.append((name, cur, float(p[5]), float(p[7]))); cur = []
    else:  # '... <n> waits <f> faults' since 2026-11-28's second session: faults kept as 'f'
        f = int(p[11]) if len(p) > 12 and p[12] == 'faults' else None
        cur.append((p[3], float(p[5]), float(p[6]), None if p[8] == '-' else float(p[8]), f))
# group: consecutive builds of the same top name; matrices advance when a name repeats after others
groups = []
for b in builds:
    top = b[0]
    if groups and groups[-1][0] == top: groups[-1][1].append(b)
    else: groups.append((top, [b]))
mi = -1; seen = set()
for top, bs in groups:
    base = top.split('/')[0]
    if base == 'csr_scalar' and '/' not in top: mi += 1
    m = mats[mi] if 0 <= mi < len(mats) else '?'
    use = bs[1:] if len(bs) > 2 else bs
    ph = collections.OrderedDict()
    for (_, phases, eh, ed) in use:
        for (n, hs, hl, dv, f) in phases:
            ph.setdefault(n, []).append((hs, hl, dv, f))
    eh = statistics.median([b[2] for b in use]); ed = statistics.median([b[3] for b in use])
    parts = []
    for n, v in ph.items():
        hs = statistics.median(x[0] for x in v); hl = statistics.median(x[1] for x in v)
        dv = [x[2] for x in v if x[2] is not None]
        fl = [x[3] for x in v if x[3] is not None]
        parts.append('%s@%.0f+%.0f%s%s' % (n, hs*1000, hl*1000, '' if not dv else '/d%.0f' % (statistics.median(dv)*1000),
                                         '' if not fl or statistics.median(fl) == 0 else '/f%g' % statistics.median(fl)))
    print('%-20s %-22s n=%d end host %.0f dev %.0f | %s' % (m, top, len(use), eh*1000, ed*1000, ' '.join(parts)))
