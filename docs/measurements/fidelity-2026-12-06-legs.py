import csv,math,sys,glob,os,subprocess,json
W=[(3.31,53.1),(-14.7,54.1),(-17.9,1.0)]
def load(f):
    rows=[l for l in open(f) if not l.startswith('#')]
    r=list(csv.DictReader(rows)); k='t_s' if 't_s' in r[0] else 't'
    return [(float(x[k]),float(x['x']),float(x['y']),float(x['z'])) for x in r]
def legs(P):
    # time of closest approach to each waypoint in sequence
    out=[];i0=0
    for w in W:
        best=None
        for i in range(i0,len(P)):
            d=math.hypot(P[i][1]-w[0],P[i][2]-w[1])
            if best is None or d<best[0]: best=(d,i)
            if d>best[0]+8 and best[0]<3: break
        out.append(P[best[1]][0]); i0=best[1]
    # start of leg1: first time z>9
    t0=next(p[0] for p in P if p[3]>9)
    return [out[0]-t0,out[1]-out[0],out[2]-out[1]]
d=json.load(open('/tmp/m3.json'))
base='/work/shared/data/px4-reference/wide/'
for t in d['tests']:
    name=t['test']
    px=load(base+'trajectories/mission3/'+name+'.csv')
    od='/tmp/l3/'+name
    if not os.path.exists(od):
        subprocess.run(['/tmp/m2/sd','run',base+'mission3/'+name+'.yaml','--out',od],capture_output=True)
    sim=load(glob.glob(od+'/*-run1.csv')[0])
    a=legs(px);b=legs(sim)
    print('%-34s px4 %s  sim %s   slow %.2f/%.2f'%(name[11:], ' '.join('%5.0f'%x for x in a),' '.join('%5.0f'%x for x in b),t['px4_slow_share'] or 0,t['sim_slow_share'] or 0))
