# Climb profile of PX4's traced flights against the simulator's, on the
# mission4 tests of wide/ that have PX4's time series. Usage, from the
# repository root, with one simulator's run folder per argument:
#   ls ../shared/data/px4-reference/wide/trajectories/mission4 | head -40 | sed 's/.csv//' > /tmp/m4list
#   (cd ../shared/data/px4-reference/wide && shakedown run $(sed 's#^#mission4/#; s#$#.yaml#' /tmp/m4list) --out /tmp/climb-new)
#   python3 docs/measurements/fidelity-2026-12-07-climb.py /tmp/m4list /tmp/climb-new [/tmp/climb-old ...]
import csv, statistics as st, sys

REF = '../shared/data/px4-reference/wide/trajectories/mission4/%s.csv'


def load(f):
    rows = [l for l in open(f) if not l.startswith('#')]
    r = list(csv.DictReader(rows))
    k = 't_s' if 't_s' in r[0] else 't'
    p = [(float(x[k]), float(x['z'])) for x in r]
    if min(z for _, z in p) < -1:  # NED down → altitude
        p = [(t, -z) for t, z in p]
    return p


def stats(p):
    t0 = next((t for t, z in p if z > 0.3), None)
    t9 = next((t for t, z in p if z > 9), None)
    if t0 is None or t9 is None:
        return None
    t5 = next(t for t, z in p if z > 5)
    zmax = max(z for t, z in p if t9 <= t <= t9 + 15)
    zmean = st.mean(z for t, z in p if t9 + 5 <= t <= t9 + 15)
    return t9 - t0, t5 - t0, zmax, zmean


names = [l.strip() for l in open(sys.argv[1]) if l.strip()]
sets = {'px4': lambda n: REF % n}
for d in sys.argv[2:]:
    sets[d] = lambda n, d=d: '%s/%s-run1.csv' % (d, n)
res = {k: [] for k in sets}
for n in names:
    s = {k: stats(load(f(n))) for k, f in sets.items()}
    if all(s.values()):
        for k in sets:
            res[k].append(s[k])
print('tests', len(res['px4']))
for k, v in res.items():
    m = [st.median(x[i] for x in v) for i in range(4)]
    print('%-16s 0.3→9 m %.1f s  0.3→5 m %.1f s  highest in the 15 s after 9 m %.2f m  mean 5–15 s after %.2f m' % (k, *m))
