#!/usr/bin/env python3
"""Rating files for the matrix-factorisation peer benchmarks (LIBMF, CuMF_SGD).

python3 only; numpy is used by `cumf-bin` when present (faster), never required.

  ratings.py split INPUT --out DIR [--test-frac 0.1] [--seed 42] [--drop-unseen]
      Read ratings (MovieLens ratings.dat `u::i::r::t`, u.data `u<TAB>i<TAB>r<TAB>t`,
      ratings.csv `userId,movieId,rating,timestamp` with its header, or LIBMF text
      `u i r`; any integer ids), shuffle them with a fixed seed, and write
        DIR/train.txt, DIR/test.txt   LIBMF text `u i r`, ids compacted to 0..m-1 / 0..n-1
                                      (ids seen in training first, in ascending raw order;
                                      test-only ids after them), lines in shuffled order
        DIR/users.txt, DIR/items.txt  the raw id of each compact id, one per line
        DIR/meta.json                 counts, seed, the training mean, unseen test ratings
      The test set is the last round(N * test_frac) ratings of the shuffled order (a uniform
      random split). Test ratings whose user or item has no training rating are kept
      (LIBMF predicts them as the training mean; the patched CuMF_SGD does the same) unless
      --drop-unseen.

  ratings.py compact TRAIN TEST --out DIR
      The same id compaction for an existing split (LIBMF text or any format above); writes
      DIR/train.txt, DIR/test.txt, DIR/users.txt, DIR/items.txt, DIR/meta.json. Line order kept.

  ratings.py check FILE...
      Check LIBMF text as LIBMF needs it: three fields, ids integers >= 0 (LIBMF uses them as
      row indices, m = max id + 1, and has no check), finite ratings. Prints m, n, nnz and the
      number of distinct ids, exits 1 on a bad line or an empty file.

  ratings.py cumf-bin TEXT BIN
      LIBMF text -> CuMF_SGD's binary format: per rating int32 user, int32 item, float32
      rating, little endian, no header (ids must be >= 0 and < 2^31; use compacted files).

Bad input (a field that is not a number, NaN or infinite rating, a missing field, an empty
file) is reported with its file and line number and exit status 1.
"""
import json
import math
import os
import random
import struct
import sys
import time


def die(msg):
    sys.stderr.write("ratings.py: ERROR: %s\n" % msg)
    sys.exit(1)


def parse_line(line):
    """(user, item, rating_text) from one line of any supported format, or None to skip."""
    s = line.strip()
    if not s or s.startswith("#") or s.startswith("%"):
        return None
    if "::" in s:
        f = s.split("::")
    elif "," in s:
        f = s.split(",")
    else:
        f = s.split()
    if len(f) < 3:
        raise ValueError("expected at least 3 fields, got %d" % len(f))
    return f[0].strip(), f[1].strip(), f[2].strip()


def read_ratings(path):
    """Lists of raw user ids, raw item ids (ints) and ratings (floats)."""
    us, vs, rs = [], [], []
    first = True
    with open(path, "r", encoding="utf-8", errors="replace") as fh:
        for ln, line in enumerate(fh, 1):
            try:
                t = parse_line(line)
            except ValueError as e:
                die("%s:%d: %s" % (path, ln, e))
            if t is None:
                continue
            u, v, r = t
            try:
                ui, vi = int(u), int(v)
            except ValueError:
                if first:  # a header (ratings.csv: userId,movieId,rating,timestamp)
                    first = False
                    continue
                die("%s:%d: ids must be integers: %r" % (path, ln, line.strip()[:80]))
            first = False
            try:
                rf = float(r)
            except ValueError:
                die("%s:%d: rating is not a number: %r" % (path, ln, r[:40]))
            if not math.isfinite(rf):
                die("%s:%d: rating is not finite: %r" % (path, ln, r))
            us.append(ui)
            vs.append(vi)
            rs.append(rf)
    if not us:
        die("%s: no ratings" % path)
    return us, vs, rs


def compact_maps(train_ids, test_ids):
    """raw id -> compact id: training ids ascending first, then test-only ids ascending."""
    tr = sorted(set(train_ids))
    m = {x: i for i, x in enumerate(tr)}
    extra = sorted(set(test_ids) - m.keys())
    for x in extra:
        m[x] = len(m)
    return m, len(tr)


def fmt_rating(r):
    return "%.10g" % r


def write_split(out, tr, te, source, extra_meta, drop_unseen=False):
    """tr, te: (users, items, ratings) with raw ids. Writes DIR/{train,test,users,items}.txt."""
    os.makedirs(out, exist_ok=True)
    umap, m_tr = compact_maps(tr[0], te[0])
    imap, n_tr = compact_maps(tr[1], te[1])
    unseen = 0
    kept = 0
    with open(os.path.join(out, "train.txt"), "w") as f:
        f.writelines("%d %d %s\n" % (umap[u], imap[v], fmt_rating(r))
                     for u, v, r in zip(*tr))
    with open(os.path.join(out, "test.txt"), "w") as f:
        for u, v, r in zip(*te):
            cu, cv = umap[u], imap[v]
            is_unseen = cu >= m_tr or cv >= n_tr
            unseen += is_unseen
            if is_unseen and drop_unseen:
                continue
            kept += 1
            f.write("%d %d %s\n" % (cu, cv, fmt_rating(r)))
    for name, mp in (("users.txt", umap), ("items.txt", imap)):
        inv = [0] * len(mp)
        for raw, c in mp.items():
            inv[c] = raw
        with open(os.path.join(out, name), "w") as f:
            f.writelines("%d\n" % x for x in inv)
    n = len(tr[0])
    meta = {
        "source": os.path.abspath(source) if isinstance(source, str) else source,
        "train_ratings": n,
        "test_ratings": kept,
        "test_ratings_with_unseen_user_or_item": unseen,
        "test_unseen_dropped": bool(drop_unseen),
        "train_users": m_tr,
        "train_items": n_tr,
        "all_users": len(umap),
        "all_items": len(imap),
        "train_mean": sum(tr[2]) / n,
        "raw_user_id_max": max(umap),
        "raw_item_id_max": max(imap),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    meta.update(extra_meta)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return meta


def cmd_split(a):
    us, vs, rs = read_ratings(a.input)
    n = len(us)
    if not 0.0 < a.test_frac < 1.0:
        die("--test-frac must be in (0, 1)")
    order = list(range(n))
    random.Random(a.seed).shuffle(order)
    n_test = int(round(n * a.test_frac))
    if n_test == 0 or n_test == n:
        die("%d ratings cannot be split with test fraction %g" % (n, a.test_frac))
    tr_idx, te_idx = order[: n - n_test], order[n - n_test:]
    tr = ([us[i] for i in tr_idx], [vs[i] for i in tr_idx], [rs[i] for i in tr_idx])
    te = ([us[i] for i in te_idx], [vs[i] for i in te_idx], [rs[i] for i in te_idx])
    meta = write_split(a.out, tr, te, a.input,
                       {"split": "uniform random, python random.Random(seed).shuffle",
                        "seed": a.seed, "test_frac": a.test_frac, "input_ratings": n},
                       a.drop_unseen)
    print(json.dumps(meta, indent=1))


def cmd_compact(a):
    tr = read_ratings(a.train)
    te = read_ratings(a.test)
    meta = write_split(a.out, tr, te, {"train": os.path.abspath(a.train),
                                        "test": os.path.abspath(a.test)},
                       {"split": "given"}, a.drop_unseen)
    print(json.dumps(meta, indent=1))


def iter_libmf(path):
    with open(path, "r") as fh:
        for ln, line in enumerate(fh, 1):
            f = line.split()
            if not f:
                continue
            if len(f) != 3:
                die("%s:%d: expected `user item rating`, got %d fields" % (path, ln, len(f)))
            try:
                u, v, r = int(f[0]), int(f[1]), float(f[2])
            except ValueError:
                die("%s:%d: not `int int number`: %r" % (path, ln, line.strip()[:80]))
            if u < 0 or v < 0 or u >= 2**31 or v >= 2**31:
                die("%s:%d: ids must be in 0..2^31-1 (LIBMF/CuMF use them as indices)" % (path, ln))
            if not math.isfinite(r):
                die("%s:%d: rating is not finite" % (path, ln))
            yield u, v, r


def cmd_check(a):
    bad = 0
    for p in a.files:
        us, vs = set(), set()
        m = n = nnz = 0
        for u, v, r in iter_libmf(p):
            nnz += 1
            us.add(u)
            vs.add(v)
            m = max(m, u + 1)
            n = max(n, v + 1)
        if nnz == 0:
            sys.stderr.write("ratings.py: %s: empty\n" % p)
            bad = 1
            continue
        print("%s: nnz %d  m %d (%d distinct users)  n %d (%d distinct items)%s"
              % (p, nnz, m, len(us), n, len(vs),
                 "" if (m == len(us) and n == len(vs)) else
                 "  [not every id below the maximum is used: LIBMF allocates max+1 rows; see `ratings.py compact`]"))
    sys.exit(bad)


def cmd_cumf_bin(a):
    t0 = time.time()
    nnz = 0
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        try:
            arr = np.loadtxt(a.text, dtype=np.float64, ndmin=2)
        except ValueError as e:
            die("%s: %s (use LIBMF text `user item rating`)" % (a.text, e))
        if arr.size == 0:
            die("%s: no ratings" % a.text)
        if arr.shape[1] != 3:
            die("%s: expected 3 columns, got %d" % (a.text, arr.shape[1]))
        u, v, r = arr[:, 0], arr[:, 1], arr[:, 2]
        if (u < 0).any() or (v < 0).any() or (u >= 2**31).any() or (v >= 2**31).any():
            die("%s: ids must be in 0..2^31-1" % a.text)
        if (u != np.floor(u)).any() or (v != np.floor(v)).any():
            die("%s: ids must be integers" % a.text)
        if not np.isfinite(r).all():
            die("%s: a rating is not finite" % a.text)
        rec = np.empty(len(u), dtype=[("u", "<i4"), ("v", "<i4"), ("r", "<f4")])
        rec["u"], rec["v"], rec["r"] = u, v, r
        rec.tofile(a.bin)
        nnz = len(u)
    else:
        st = struct.Struct("<iif")
        buf = bytearray()
        with open(a.bin, "wb") as out:
            for u, v, r in iter_libmf(a.text):
                buf += st.pack(u, v, r)
                nnz += 1
                if len(buf) >= 1 << 24:
                    out.write(buf)
                    buf.clear()
            out.write(buf)
        if nnz == 0:
            die("%s: no ratings" % a.text)
    print("cumf-bin: %s -> %s: %d ratings, %d bytes, %.1f s (%s)"
          % (a.text, a.bin, nnz, 12 * nnz, time.time() - t0,
             "numpy" if np is not None else "struct"))


def main():
    import argparse
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("input")
    s.add_argument("--out", required=True)
    s.add_argument("--test-frac", type=float, default=0.1)
    s.add_argument("--seed", type=int, default=42)
    s.add_argument("--drop-unseen", action="store_true")
    s.set_defaults(fn=cmd_split)
    s = sub.add_parser("compact")
    s.add_argument("train")
    s.add_argument("test")
    s.add_argument("--out", required=True)
    s.add_argument("--drop-unseen", action="store_true")
    s.set_defaults(fn=cmd_compact)
    s = sub.add_parser("check")
    s.add_argument("files", nargs="+")
    s.set_defaults(fn=cmd_check)
    s = sub.add_parser("cumf-bin")
    s.add_argument("text")
    s.add_argument("bin")
    s.set_defaults(fn=cmd_cumf_bin)
    a = p.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
