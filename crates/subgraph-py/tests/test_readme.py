"""The manual's Python, run: the code blocks of the book's Python chapter (docs/src/python.md)
and of README.md, and both sides of each row of the chapter's table of calls from other
libraries, so that the manual cannot drift from the package."""

import ast
import importlib.util
import itertools
import pathlib
import re

import numpy as np
import pytest

import subgraph

ROOT = pathlib.Path(__file__).resolve().parents[3]
CHAPTER = pathlib.Path("docs", "src", "python.md")
HEADING = "# Python"
TABLE = "| you call | here |"


def python_section():
    """The text of the book's Python chapter, after its "# Python" title."""
    path = ROOT / CHAPTER
    assert path.is_file(), f"the book has no Python chapter: {CHAPTER} is missing"
    lines = path.read_text().splitlines()
    assert lines and lines[0] == HEADING, f"{CHAPTER} does not start with '{HEADING}'"
    return "\n".join(lines[1:])


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def code_blocks():
    """(where, code) of each python block: the chapter's, then the README's."""
    chapter = python_blocks(python_section())
    assert chapter, f"{CHAPTER} has no python code block"
    readme = python_blocks((ROOT / "README.md").read_text())
    assert readme, "README.md has no python code block (its example with networkx)"
    return [(f"{CHAPTER}, block {i + 1}", code) for i, code in enumerate(chapter)] + [
        (f"README.md, block {i + 1}", code) for i, code in enumerate(readme)]


def missing_modules(code):
    """The modules a block imports that are not installed."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return sorted(name for name in names if importlib.util.find_spec(name) is None)


@pytest.mark.parametrize("index", range(len(code_blocks())))
def test_readme_python_code_blocks_run(index, monkeypatch):
    where, code = code_blocks()[index]
    missing = missing_modules(code)
    if missing:
        pytest.skip(f"{where} needs {', '.join(missing)}, which is not installed")
    # The blocks name files from the repository root, as a reader there would.
    monkeypatch.chdir(ROOT)
    exec(compile(code, where, "exec"), {})


def library_rows():
    """(library, its call, ours) per row of the table headed "| you call | here |": each
    cell's first code span."""
    lines = python_section().splitlines()
    assert TABLE in lines, f"{CHAPTER} has no table headed '{TABLE}'"
    rows = []
    for line in itertools.takewhile(lambda line: line.startswith("|"), lines[lines.index(TABLE) + 2:]):
        theirs, ours = [cell.strip() for cell in line.strip("|").split("|")]
        code = [re.search(r"`([^`]+)`", cell).group(1) for cell in (theirs, ours)]
        rows.append((theirs.split()[0], *code))
    assert {library for library, _, _ in rows} == {"networkx", "rustworkx", "igraph"}, rows
    return rows


def canonical(value):
    """A comparable form of either side: a number, or the set of mappings {G node: H node}
    (iter_matches' rows map query vertex j to the row's j-th data vertex; the graphs here have
    nodes 0..n-1 in vertex order)."""
    if isinstance(value, (bool, int, np.integer)):
        return int(value)
    items = list(value)
    if items and isinstance(items[0], np.ndarray):
        return sorted(tuple(sorted((int(v), j) for j, v in enumerate(row))) for row in np.concatenate(items))
    return sorted(tuple(sorted(dict(m).items())) for m in items)


def small_graphs(seed):
    """A data graph of 9 vertices and a query of 3 (a path or a triangle), undirected, as edge
    lists and vertex labels: strings on odd seeds, integers on even ones."""
    rng = np.random.default_rng(seed)
    edges = [(a, b) for a in range(9) for b in range(a + 1, 9) if rng.random() < 0.45]
    q_edges = [(0, 1), (1, 2)] if seed % 3 else [(0, 1), (1, 2), (2, 0)]
    kinds = ["A", "B"] if seed % 2 else [0, 1]
    labels = [kinds[x] for x in rng.integers(0, 2, 9)]
    q_labels = [kinds[x] for x in rng.integers(0, 2, 3)]
    return (9, edges, labels), (3, q_edges, q_labels)


def namespace(library, seed):
    """G and H in `library`, labelled "label", and the names the table's calls use."""
    (n, edges, labels), (q_n, q_edges, q_labels) = small_graphs(seed)
    if library == "networkx":
        nx = pytest.importorskip("networkx")
        from networkx.algorithms.isomorphism import GraphMatcher, categorical_node_match

        def graph(n, edges, labels):
            g = nx.Graph()
            g.add_nodes_from((v, {"label": labels[v]}) for v in range(n))
            g.add_edges_from(edges)
            return g

        names = {"GraphMatcher": GraphMatcher, "categorical_node_match": categorical_node_match,
                 "nm": categorical_node_match("label", 0)}
    elif library == "rustworkx":
        rx = pytest.importorskip("rustworkx")

        def graph(n, edges, labels):
            g = rx.PyGraph()
            g.add_nodes_from([{"label": label} for label in labels])
            g.add_edges_from([(u, v, None) for u, v in edges])
            return g

        names = {"vf2_mapping": rx.vf2_mapping}
    else:
        ig = pytest.importorskip("igraph")

        def graph(n, edges, labels):
            g = ig.Graph(n=n, edges=edges)
            # igraph's colours are integers.
            g.vs["label"] = [label if isinstance(label, int) else ord(label) for label in labels]
            return g

        names = {}
    return {"subgraph": subgraph, "G": graph(n, edges, labels), "H": graph(q_n, q_edges, q_labels), **names}


@pytest.mark.parametrize("row", range(len(library_rows())))
def test_readme_library_rows_give_the_same_answers(row):
    library, theirs, ours = library_rows()[row]
    for seed in range(6):
        names = namespace(library, seed)
        expect, got = canonical(eval(theirs, dict(names))), canonical(eval(ours, dict(names)))
        assert got == expect, f"{library} row, seed {seed}: `{theirs}` gives {expect}, `{ours}` {got}"
