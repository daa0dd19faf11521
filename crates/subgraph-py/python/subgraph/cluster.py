"""Counting across processes over a partitioned data graph (the command line's
`match --local-processes` and `match --cluster`, on timely dataflow; the book's chapter
"Matching across processes"):

    import subgraph.cluster
    # subgraph partition HPRD.graph --parts 4 --output hprd-4   (once)
    r = subgraph.cluster.count("hprd-4/manifest.json", "q.graph", local_processes=2)
    r.embeddings, r.processes, r.bytes_sent

Each process runs in a process of its own (`python -m subgraph._cluster`), so that a process
that fails or a connection that breaks ends it and raises SubgraphError here, and never the
caller's interpreter.
"""

import dataclasses
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from . import _native
from ._native import Graph, SubgraphError

__all__ = ["Result", "count", "partition"]


@dataclasses.dataclass(frozen=True)
class Result:
    """One query's count over every process, as process 0 reports it (the command line's JSON
    record of `match --cluster`)."""

    embeddings: int
    complete: bool
    #: None, "limit", "timeout" or "interrupted".
    stopped: object
    elapsed_ms: float
    filter_ms: float
    order_ms: float
    enumerate_ms: float
    candidates: int
    order: str
    restrictions: int
    multiplier: int
    processes: int
    #: Candidate sets, replicated lists and partial matches sent between processes.
    bytes_sent: int
    #: Each process's time in the dataflow's operators, its workers' summed.
    busy_ms: list
    #: Each process's resident-memory high-water mark (Linux VmHWM).
    peak_rss_bytes: list
    replicated_positions: int
    replicated_entries: int
    #: "held" where every list the query reads was copied to every process and each worker
    #: searched its share of the roots alone, "routed" where partial matches were routed to
    #: the owners of their lists, "none" where nothing was searched.
    search: str
    #: The last query vertices counted together (pairwise non-adjacent, by inclusion–exclusion)
    #: rather than enumerated, as one host counts them; 0 for none.
    tail: int
    #: With unique=True: the query's automorphisms, and the distinct subgraphs (the embeddings
    #: over them) when the count is complete; else None.
    automorphisms: object = None
    unique: object = None


def partition(data, parts, output, by="hash", vertex_order="auto"):
    """Writes `data` (a Graph) in `parts` parts into the directory `output` (created if
    needed), as `subgraph partition` does: vertices by a hash of their number, or with
    by="range" in ranges balanced by adjacency size; the parts cut from the graph renumbered
    by ascending degree with vertex_order="degree", in the file's numbering with "file", and
    by degree where the vertices are unlabelled with "auto" (the default). Rows are written
    in the graph's own ids either way. Returns the manifest's path."""
    return _native.cluster_partition(data, parts, os.fspath(output), by, vertex_order)


def _free_ports(n):
    """n loopback host:port addresses free a moment ago."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [f"127.0.0.1:{s.getsockname()[1]}" for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _start(args, process, out, stderr):
    """A child process running process `process` of the cluster with `args`; process 0 writes
    its records into the file `out`."""
    command = [sys.executable, "-m", "subgraph._cluster", json.dumps(dict(args, process=process)), out]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)


def _error_line(path):
    """The last line a failed child wrote on standard error."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    return lines[-1].removeprefix("subgraph: error: ") if lines else "no message"


def _wait(children, processes, errors):
    """Waits for every child (process `processes[i]`, its standard error in `errors[i]`): the
    first that fails ends the others, and its error is raised."""
    try:
        while any(c.poll() is None for c in children):
            for i, c in enumerate(children):
                if c.returncode not in (None, 0):
                    raise SubgraphError(f"process {processes[i]}: {_error_line(errors[i])}")
            time.sleep(0.02)
        for i, c in enumerate(children):
            if c.returncode != 0:
                raise SubgraphError(f"process {processes[i]}: {_error_line(errors[i])}")
    finally:
        for c in children:
            if c.poll() is None:
                c.kill()
                c.wait()


def count(manifest, query, local_processes=None, hosts=None, process=None, semantics=None, limit=None,
          timeout=None, threads=None, order=None, symmetry=True, cache_memory=None, connect_timeout=30.0,
          unique=False):
    """Counts the embeddings of `query` (a Graph, or a query file's path holding one query) in
    the data graph partitioned at `manifest` (`subgraph partition`) with several processes: a
    Result on process 0, None on the others.

    Either `local_processes=N`: N processes on this machine, connected over 127.0.0.1, whose
    count this call returns; or `hosts="hosts.txt", process=i`: this machine's process of those
    the file lists (one host:port a line), each machine calling count with the same arguments
    and its own `process`. `threads` is each process's worker threads (default 1), `limit` the
    first N embeddings over every process, `timeout` seconds each process may search,
    `order` "gql" (the default) or "ri", `symmetry` symmetry breaking, `cache_memory` the bytes
    each process may hold of the lists a query reads (default 1 GiB, 0 for none),
    `connect_timeout` the seconds connecting may take, and `unique` counts the distinct
    subgraphs too (as subgraph.count's). Only embeddings are counted (semantics "embed"). A
    bad argument, a query the cluster cannot run and a process that fails raise SubgraphError
    with one line naming the process."""
    if (local_processes is None) == (hosts is None):
        raise SubgraphError("give local_processes=N, or hosts= and process=")
    if hosts is not None and process is None:
        raise SubgraphError("hosts= needs process=, this machine's line in the hosts file")
    if local_processes is not None and (process is not None or not isinstance(local_processes, int)
                                        or local_processes < 1):
        raise SubgraphError("local_processes must be a positive number of processes, without process=")
    for name, value in (("limit", limit), ("threads", threads)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise SubgraphError(f"{name} must be at least 1, got {value}")
    if isinstance(query, str) and not os.path.exists(query):
        raise SubgraphError(f"{query}: no such query file (patterns are not supported across processes)")
    with tempfile.TemporaryDirectory(prefix="subgraph-cluster-") as tmp:
        if isinstance(query, Graph):
            path = os.path.join(tmp, "query.sgb")
            query.save(path)
            query = path
        elif not isinstance(query, (str, os.PathLike)):
            raise TypeError("query must be a subgraph.Graph or a query file's path")
        args = dict(manifest=os.fspath(manifest), query=os.fspath(query), threads=1 if threads is None else threads,
                    semantics=semantics, limit=limit, timeout=timeout, order=order, symmetry=symmetry,
                    cache_memory=cache_memory, connect_timeout=connect_timeout, unique=bool(unique))
        if local_processes is not None:
            hosts = os.path.join(tmp, "hosts.txt")
            with open(hosts, "w", encoding="utf-8") as f:
                f.write("\n".join(_free_ports(local_processes)) + "\n")
            processes = range(local_processes)
        else:
            processes = [process]
        args["hosts"] = os.fspath(hosts)
        errors = [os.path.join(tmp, f"stderr.{i}") for i in range(len(processes))]
        out = os.path.join(tmp, "records.json")
        children = []
        for i, p in enumerate(processes):
            with open(errors[i], "wb") as stderr:
                children.append(_start(args, p, out, stderr))
        _wait(children, list(processes), errors)
        if not os.path.exists(out):
            return None
        with open(out, encoding="utf-8") as f:
            records = json.load(f)
    if len(records) != 1:
        raise SubgraphError(f"{query} holds {len(records)} queries; give a file of one")
    return Result(**records[0])
