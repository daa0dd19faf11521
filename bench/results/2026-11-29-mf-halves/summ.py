import json,sys
rows=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
ep=[r for r in rows if 'epoch' in r]; run=[r['run'] for r in rows if 'run' in r]
if not ep: print(sys.argv[2], 'no epochs'); sys.exit()
per=sorted((b['elapsed_ms']-a['elapsed_ms']) for a,b in zip(ep,ep[1:]))
r=run[0] if run else {}
best=min(ep,key=lambda e:e['test_rmse'] if e['test_rmse'] is not None else 9)
print('%-22s ep1 %7.1f med %7.1f p90 %7.1f ms/ep  test %.4f best %.4f@%d  cpu %.3f split %s pred %s dev %s setup %.0f' % (sys.argv[2], ep[0]['elapsed_ms'], per[len(per)//2] if per else -1, per[int(len(per)*0.9)] if per else -1, ep[-1]['test_rmse'] or -1, best['test_rmse'] or -1, best['epoch'], sum(e['cpu_share'] for e in ep)/len(ep), r.get('split'), r.get('predicted_epoch_ms'), r.get('device'), r.get('setup_ms',0)))
