#!/usr/bin/env python3
"""Run LIBMF's mf-train once and time every iteration it prints (used by libmf.sh).

  libmf_run.py --bin MF_TRAIN --train TRAIN [--test TEST] --out CSV [options]

mf-train prints no times. Each of its iteration lines (`iter tr_rmse va_rmse obj`) ends with
`"\\n" << flush` (mf.cpp, fpsg_core), so a line reaches the pipe the moment the iteration's
evaluation is done; this script stamps each line with time.monotonic() as it arrives. The
header line (`iter tr_rmse va_rmse obj`) ends with a bare "\\n" and is not flushed by LIBMF; it
is printed after reading, shuffling, scaling, gridding and initialising the model, right
before the worker threads start. mf-train's cout is synchronised with C stdio (libstdc++'s
default), so `stdbuf -oL` (line-buffered stdout) makes the header arrive when it is printed
and its stamp marks the start of training. Without stdbuf the header arrives with iteration
0 and the set-up time cannot be separated (the script says so).

The end of reading is observed from outside: LIBMF's read_problem reads each file twice
(counts lines, then parses) and closes it; a thread polls /proc/PID/io (rchar) and
/proc/PID/fd every 2 ms and stamps the moment rchar >= 2 x (size of TRAIN + TEST) and neither
file is open any more.

CSV rows (appended; header written to a new file):
    system,threads,iter,elapsed_s,tr_rmse,va_rmse
iter = LIBMF's iteration + 1 (epochs completed); elapsed_s = seconds from the header (start
of training) to the line, so it includes LIBMF's own per-iteration evaluation (objective and
va_rmse, computed while the workers wait). tr_rmse is LIBMF's running training RMSE (errors
accumulated during the epoch's updates, not a separate pass). va_rmse is empty without TEST.
A JSON file (--meta) gets the phases: read_s (start to files read), setup_s (read to
header: shuffle, scale, grid, init model), train_s (header to the last iteration line),
save_s (last line to exit: writing the model), total_s, plus the command and raw lines.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def die(msg):
    sys.stderr.write("libmf_run.py: ERROR: %s\n" % msg)
    sys.exit(1)


def watch_reading(pid, paths, threshold, state, stop):
    """Stamp state['read_done'] when rchar >= threshold and none of paths is open."""
    real = {os.path.realpath(p) for p in paths}
    fd_dir = "/proc/%d/fd" % pid
    io = "/proc/%d/io" % pid
    seen_open = False
    while not stop.is_set():
        try:
            with open(io) as f:
                rchar = next(int(l.split()[1]) for l in f if l.startswith("rchar"))
            open_now = False
            for fd in os.listdir(fd_dir):
                try:
                    if os.readlink(os.path.join(fd_dir, fd)) in real:
                        open_now = True
                        break
                except OSError:
                    pass
            seen_open = seen_open or open_now
            if rchar >= threshold and not open_now and seen_open:
                state["read_done"] = time.monotonic()
                state["rchar"] = rchar
                return
        except (OSError, StopIteration):
            return  # process gone or /proc unreadable
        time.sleep(0.002)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="mf-train")
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", default="", help="validation set (mf-train -p); empty: none")
    ap.add_argument("--out", required=True, help="CSV to append to")
    ap.add_argument("--meta", default="", help="JSON with phases and raw lines")
    ap.add_argument("--log", default="", help="mf-train's output with time stamps")
    ap.add_argument("--model", default="", help="model file (default: a temporary file, removed)")
    ap.add_argument("--system", default="libmf")
    ap.add_argument("-k", type=int, default=128)
    ap.add_argument("--l2", default="0.05", help="-l2 (one value, or lambda_p,lambda_q)")
    ap.add_argument("--eta", default="0.1", help="-r, LIBMF's initial learning rate (AdaGrad-like)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--bins", type=int, default=0, help="-n (0: LIBMF's default, max(20, 2s+1))")
    ap.add_argument("--no-stdbuf", action="store_true")
    a = ap.parse_args()

    for p in [a.train] + ([a.test] if a.test else []):
        if not os.path.isfile(p) or os.path.getsize(p) == 0:
            die("no such file (or empty): %s" % p)
    if not os.access(a.bin, os.X_OK):
        die("not executable: %s" % a.bin)
    model = a.model or os.path.join(tempfile.gettempdir(), "libmf-model.%d" % os.getpid())
    cmd = [a.bin, "-f", "0", "-k", str(a.k), "-l2", a.l2, "-r", a.eta, "-t", str(a.iters),
           "-s", str(a.threads)]
    if a.bins:
        cmd += ["-n", str(a.bins)]
    if a.test:
        cmd += ["-p", a.test]
    cmd += [a.train, model]
    stdbuf = shutil.which("stdbuf")
    if a.no_stdbuf or not stdbuf:
        if not a.no_stdbuf:
            sys.stderr.write("libmf_run.py: warning: no stdbuf; set-up and training start cannot be separated\n")
        full = cmd
    else:
        full = [stdbuf, "-oL"] + cmd

    size = os.path.getsize(a.train) + (os.path.getsize(a.test) if a.test else 0)
    state = {}
    stop = threading.Event()
    t0 = time.monotonic()
    proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0)
    watcher = threading.Thread(target=watch_reading,
                               args=(proc.pid, [a.train] + ([a.test] if a.test else []),
                                     2 * size, state, stop), daemon=True)
    watcher.start()
    lines = []  # (t, text)
    for raw in iter(proc.stdout.readline, b""):
        lines.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
    rc = proc.wait()
    t_end = time.monotonic()
    stop.set()
    watcher.join(timeout=1)

    header_t = None
    iters = []  # (t, iter, tr, va, obj)
    other = []
    for t, s in lines:
        f = s.split()
        if f[:1] == ["iter"]:
            header_t = t
            continue
        if header_t is not None and f and f[0].isdigit() and len(f) in (3, 4):
            try:
                vals = [float(x) for x in f[1:]]
            except ValueError:
                other.append(s)
                continue
            tr, obj = vals[0], vals[-1]
            va = vals[1] if len(f) == 4 else None
            iters.append((t, int(f[0]), tr, va, obj))
        else:
            other.append(s)

    if a.log:
        with open(a.log, "a") as f:
            f.write("# %s\n# %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S"), " ".join(full)))
            for t, s in lines:
                f.write("%10.6f %s\n" % (t - t0, s))
            f.write("# exit %d after %.6f s\n" % (rc, t_end - t0))
    if not a.model and os.path.exists(model):
        os.remove(model)

    if rc != 0 or header_t is None or not iters:
        sys.stderr.write("\n".join(s for _, s in lines[-20:]) + "\n")
        die("mf-train failed (exit %d, %d iteration lines)" % (rc, len(iters)))

    # without line buffering the header arrives with iteration 0: no separate set-up time
    header_ok = not (a.no_stdbuf or not stdbuf) and header_t < iters[0][0] - 1e-4
    read_done = state.get("read_done")
    if header_ok:
        start, origin = header_t, "header (start of training)"
    elif read_done is not None:
        start, origin = read_done, "end of reading (set-up included: no line-buffered header)"
    else:
        start, origin = t0, "process start (reading and set-up included)"
    if not header_ok:
        sys.stderr.write("libmf_run.py: warning: elapsed_s counted from the %s\n" % origin)
    new = not os.path.exists(a.out) or os.path.getsize(a.out) == 0
    with open(a.out, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["system", "threads", "iter", "elapsed_s", "tr_rmse", "va_rmse"])
        for t, it, tr, va, obj in iters:
            w.writerow([a.system, a.threads, it + 1, "%.6f" % (t - start), "%.4f" % tr,
                        "" if va is None else "%.4f" % va])

    phases = {
        "read_s": None if read_done is None else read_done - t0,
        "setup_s": None if read_done is None or not header_ok else header_t - read_done,
        "read_and_setup_s": header_t - t0 if header_ok else None,
        "train_s": iters[-1][0] - start,
        "first_iter_s": iters[0][0] - start,
        "save_s": t_end - iters[-1][0],
        "total_s": t_end - t0,
    }
    meta = {
        "system": a.system,
        "command": full,
        "threads": a.threads,
        "k": a.k, "l2": a.l2, "eta": a.eta, "iters": a.iters,
        "train": os.path.abspath(a.train), "test": os.path.abspath(a.test) if a.test else None,
        "header_line_buffered": header_ok,
        "elapsed_from": origin,
        "phases": phases,
        "rchar_at_read_done": state.get("rchar"),
        "iterations": [{"iter": it + 1, "elapsed_s": t - start, "tr_rmse": tr, "va_rmse": va,
                        "obj": obj} for t, it, tr, va, obj in iters],
        "other_output": other,
        "exit": rc,
    }
    if a.meta:
        with open(a.meta, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
    best = min((va, it + 1) for _, it, _, va, _ in iters) if iters[0][3] is not None else None
    print("libmf: %d iterations in %.3f s (read %s s, setup %s s, save %.3f s)%s"
          % (len(iters), phases["train_s"],
             "?" if phases["read_s"] is None else "%.3f" % phases["read_s"],
             "?" if phases["setup_s"] is None else "%.3f" % phases["setup_s"],
             phases["save_s"],
             "" if best is None else "; best va_rmse %.4f at iter %d" % best))


if __name__ == "__main__":
    main()
