#!/usr/bin/env python3
"""Prints a digest of the multiset of rows of binary output (`--output-format binary`): the
rows sorted, then hashed. Usage: rows.py FILE"""
import hashlib, struct, sys
import numpy as np

data = open(sys.argv[1], "rb").read()
at, cols, width, parts = 0, 0, 4, []
while at < len(data):
    tag, n = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
    body = data[at + 8:at + 8 + n]
    if tag == b"SGMQ":
        cols, width = struct.unpack_from("<I", body, 4)[0], struct.unpack_from("<I", body, 8)[0]
    elif tag == b"SGMR":
        parts.append(np.frombuffer(body, dtype="<u4" if width == 4 else "<u8").reshape(-1, cols))
    at += 8 + n
rows = np.concatenate(parts) if parts else np.zeros((0, cols), dtype="<u4")
order = np.lexsort(rows.T[::-1])
print(len(rows), hashlib.sha256(np.ascontiguousarray(rows[order]).tobytes()).hexdigest()[:16])
