"""subgraph.Client against `subgraph serve` started on an ephemeral loopback port over the
shipped HPRD graph (the binary cargo built: SUBGRAPH_BIN, else target/debug or target/release):
counts equal to the oracle's, streamed rows as many as the count, a pattern's rows, a token
file's refusals, and errors with the server's codes."""

import os
import pathlib
import re
import signal
import subprocess
import threading

import pytest

import subgraph
from subgraph import ServerError

ROOT = pathlib.Path(__file__).resolve().parents[3]
HPRD = ROOT / "tests" / "data" / "hprd"


def binary():
    for candidate in [os.environ.get("SUBGRAPH_BIN"), ROOT / "target/debug/subgraph", ROOT / "target/release/subgraph"]:
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    pytest.skip("no subgraph binary: run cargo build first, or set SUBGRAPH_BIN")


def expected(name):
    for line in (HPRD / "expected_output.res").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split(":")[1])
    raise KeyError(name)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tokens = tmp_path_factory.mktemp("serve") / "tokens.txt"
    tokens.write_text("alice secret-a\nbob secret-b other\n")
    args = [binary(), "serve", "--listen", "127.0.0.1:0", "--device", "cpu", "--shutdown-grace", "1",
            "--graph", f"hprd={HPRD / 'HPRD.graph'}", "--graph", f"other={HPRD / 'HPRD.graph'}",
            "--token-file", str(tokens)]
    process = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    url = None
    for line in process.stderr:
        found = re.match(r"subgraph serve: listening on (http://\S+)", line)
        if found:
            url = found.group(1)
            break
    assert url, "the server did not say where it listens"
    # Its later lines (refusals logged) are drained, so that a full pipe never blocks it.
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    yield url
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0


def test_counts_rows_and_the_record(server):
    c = subgraph.Client(server, token="secret-a", timeout=60)
    assert c.health()["status"] == "ok"
    assert [g["name"] for g in c.graphs()] == ["hprd", "other"]
    for name in ["query_dense_16_2", "query_dense_16_8", "query_dense_16_11"]:
        path = HPRD / "queries" / f"{name}.graph"
        record = c.count("hprd", path)
        assert (record["embeddings"], record["complete"]) == (expected(name), True)
        rows = c.match("hprd", path)
        assert len(rows) == expected(name) and all(len(r) == 16 for r in rows)
    pattern = "MATCH (a:1)--(b:1) RETURN a, b"
    assert c.count("hprd", pattern.replace("a, b", "count(*)"))["embeddings"] == 590
    matches = c.iter_matches("hprd", pattern, limit=5)
    rows = list(matches)
    assert len(rows) == 5 and all(set(r) == {"a", "b"} for r in rows)
    assert (matches.record["rows"], matches.record["stopped"]) == (5, "limit")


def test_errors_carry_the_server_s_code(server):
    c = subgraph.Client(server, token="secret-b", timeout=60)
    with pytest.raises(ServerError) as e:
        c.count("hprd", "MATCH (a)")
    assert (e.value.code, e.value.status) == ("forbidden", 403)
    with pytest.raises(ServerError) as e:
        c.count("other", "MATCH (a")
    assert (e.value.code, e.value.status) == ("bad_pattern", 400)
    with pytest.raises(ServerError) as e:
        subgraph.Client(server, token="wrong").graphs()
    assert (e.value.code, e.value.status) == ("unauthorized", 401)
    with pytest.raises(ServerError) as e:
        c.count("nope", "MATCH (a)")
    assert e.value.code == "unknown_graph"
