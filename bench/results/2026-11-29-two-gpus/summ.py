import json,sys
rows=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
ep=[r for r in rows if 'epoch' in r]; run=[r['run'] for r in rows if 'run' in r]
if not ep: print(sys.argv[2], 'no epochs'); sys.exit()
d=[ep[0]['elapsed_ms']]+[b['elapsed_ms']-a['elapsed_ms'] for a,b in zip(ep,ep[1:])]
per=sorted(d[1:])
r=run[0] if run else {}
print('%-22s med %7.1f ms/ep  test %.4f  split %s pred %s setup %.0f' % (sys.argv[2], per[len(per)//2] if per else -1, ep[-1]['test_rmse'] or -1, r.get('split'), r.get('predicted_epoch_ms'), r.get('setup_ms',0)))
print('   epochs ms/cpu share: ' + ' '.join('%.0f/%.2f' % (x, e['cpu_share']) for x,e in zip(d,ep)))
