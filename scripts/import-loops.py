#!/usr/bin/env python3
"""Finds import loops between the modules of each Rust crate: module A names module B, and B
names A back, directly or through others.

Usage: import-loops.py [--crates NAME[,NAME...]] [CRATE_DIR...]

With no CRATE_DIR, every crate under crates/ beside this script's folder. --crates keeps the
crates whose folder name is listed (`subgraph-core` or `core`). Prints each loop, the modules in
it and, for every edge between them, the first place that names it; exits 1 when any crate has a
loop, 0 when none has.

The module graph of a crate is built from its sources, starting at `src/lib.rs` and, separately,
`src/main.rs` (each a crate root) and following `mod x;` to `x.rs` or `x/mod.rs` beside the
declaring file (in `a/` for a file `a.rs`). An edge runs from a module to every module that a
path in it names: in `use` trees and in qualified paths in code (`crate::x::…`, `super::…`,
`self::…`, a submodule's name, or a name the module imported with `use`), resolved to the
deepest existing module, so `crate::filter::Bitset` is an edge to `filter` even where `filter`
only re-exports it. A child naming its parent through `super::` is an edge; declaring a submodule
is not. Items under `#[cfg(test)]` (the `mod tests` blocks, test-only modules and helpers) are
left out: tests may reach anywhere. Comments, doc links and string literals are not paths.
"""
import argparse
import os
import signal
import sys


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind  # "ident", "punct"
        self.text = text
        self.line = line


def tokenize(src):
    """Identifiers and punctuation of Rust source, without comments, strings or char literals.
    `::` is one token; every other punctuation character is a token of its own."""
    out = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += src[i] == "\n"
                    i += 1
        elif c in "rb" and raw_string_start(src, i):
            j = i + (2 if src.startswith("br", i) else 1)
            hashes = 0
            while src[j] == "#":
                hashes, j = hashes + 1, j + 1
            end = src.find('"' + "#" * hashes, j + 1)
            end = n if end < 0 else end + 1 + hashes
            line += src.count("\n", i, end)
            i = end
        elif c == '"' or (c == "b" and src.startswith('b"', i)):
            i += 2 if c == "b" else 1
            while i < n and src[i] != '"':
                if src[i] == "\\":
                    i += 1
                line += src[i] == "\n"
                i += 1
            i += 1
        elif c == "'" or (c == "b" and src.startswith("b'", i)):
            start = i + (2 if c == "b" else 1)
            end = char_literal_end(src, start)
            if end is None:  # a lifetime or a label: 'a
                i = start
            else:
                i = end
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            word = src[i:j]
            if word == "r" and j < n and src[j] == "#":  # raw identifier r#type
                k = j + 1
                while k < n and (src[k].isalnum() or src[k] == "_"):
                    k += 1
                word, j = src[j + 1 : k], k
            out.append(Token("ident", word, line))
            i = j
        elif c.isdigit():
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_" or (src[j] == "." and j + 1 < n and src[j + 1].isdigit())):
                j += 1
            i = j
        elif src.startswith("::", i):
            out.append(Token("punct", "::", line))
            i += 2
        else:
            out.append(Token("punct", c, line))
            i += 1
    return out


def raw_string_start(src, i):
    j = i + (2 if src.startswith("br", i) else 1)
    if j == i + 1 and src[i] != "r":
        return False
    if i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_"):
        return False
    while j < len(src) and src[j] == "#":
        j += 1
    return j < len(src) and src[j] == '"'


def char_literal_end(src, start):
    """The index past a char literal whose body starts at `start`, or None for a lifetime."""
    if start >= len(src):
        return None
    if src[start] == "\\":
        end = src.find("'", start + 2)
        return None if end < 0 else end + 1
    if start + 1 < len(src) and src[start + 1] == "'":
        return start + 2
    return None


class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of names; () is the crate root
        self.file = file
        self.children = {}  # name -> Module
        self.imports = {}  # local name -> absolute segments (tuple), for use-imported names
        self.named = []  # (segments as written, line) for every path it names


def skip_brackets(tokens, i):
    """From an opening (, [ or { at i, the index past its closing partner."""
    depth = 0
    while i < len(tokens):
        t = tokens[i].text
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


CFG_TEST = ["[", "cfg", "(", "test", ")", "]"]


def skip_item(tokens, i):
    """From the first token of an item, statement or field (after its attributes), the index
    past it: past its `;` or its body's `}`, or up to the `,` or closing bracket that ends a
    field, variant or match arm."""
    j = i
    while j < len(tokens) and tokens[j].text in ("pub", "(", "unsafe", "async", "extern"):
        j = skip_brackets(tokens, j) if tokens[j].text == "(" else j + 1
    first = tokens[j].text if j < len(tokens) else ""
    after = tokens[j + 1].text if j + 1 < len(tokens) else ""
    to_semicolon = first in ("use", "static", "type", "let") or (first == "const" and after not in ("fn", "unsafe", "async"))
    is_item = to_semicolon or first in ("fn", "mod", "impl", "struct", "enum", "trait", "union", "macro_rules", "const")
    while j < len(tokens):
        t = tokens[j].text
        if t == ";":
            return j + 1
        if t in ")]}" or (t == "," and not is_item):
            return j
        if t == "{" and not to_semicolon:
            return skip_brackets(tokens, j)
        j = skip_brackets(tokens, j) if t in "([{" else j + 1
    return j


def parse_use_tree(tokens, i, prefix, leaves):
    """Parses a use tree at i into leaves (segments, bound name or None for a glob); returns the
    index past it."""
    segs = list(prefix)
    while i < len(tokens):
        t = tokens[i]
        if t.text == "{":
            i += 1
            while tokens[i].text != "}":
                i = parse_use_tree(tokens, i, segs, leaves)
                if tokens[i].text == ",":
                    i += 1
            return i + 1
        if t.text == "*":
            leaves.append((tuple(segs), None, t.line))
            return i + 1
        if t.text == "::":
            if not segs:
                segs.append("::")  # a path from the extern prelude
            i += 1
            continue
        if t.kind == "ident":
            name = t.text
            i += 1
            if i < len(tokens) and tokens[i].text == "::":
                segs.append(name)
                continue
            bound = name
            if i + 1 < len(tokens) and tokens[i].text == "as":
                bound = tokens[i + 1].text
                i += 2
            if name == "self":
                bound = segs[-1] if bound == "self" else bound
                leaves.append((tuple(segs), bound, t.line))
            else:
                leaves.append((tuple(segs + [name]), bound, t.line))
            return i
        raise ValueError(f"unexpected {t.text!r} in a use tree on line {t.line}")
    return i


def scan(module, tokens, sub_dir):
    """Records the paths that a module's tokens name, and loads the modules it declares (their
    files in `sub_dir`). False for a file under `#![cfg(test)]`."""
    i, n = 0, len(tokens)
    prev = None
    while i < n:
        t = tokens[i]
        if t.text == "#":
            inner = i + 1 < n and tokens[i + 1].text == "!"
            bracket = i + 2 if inner else i + 1
            end = skip_brackets(tokens, bracket)
            if [x.text for x in tokens[bracket:end]] == CFG_TEST:
                if inner:  # #![cfg(test)]: the whole file is a test module
                    return False
                while end < n and tokens[end].text == "#":  # the item's other attributes
                    end = skip_brackets(tokens, end + 1)
                i = skip_item(tokens, end)
                prev = None
                continue
            # Any other attribute is scanned as code: `value_parser = crate::x::f` is a path.
        if t.text == "mod" and t.kind == "ident" and i + 2 < n and tokens[i + 1].kind == "ident":
            name = tokens[i + 1].text
            if tokens[i + 2].text == ";":
                # `a.rs` and `a/mod.rs` both keep their submodules in `a/`.
                file = child_file(sub_dir, name, module.file)
                child = load_file(module.path + (name,), file, os.path.join(sub_dir, name))
                if child is not None:
                    module.children[name] = child
                i += 3
                continue
            if tokens[i + 2].text == "{":
                # An inline module: a node of its own, its body scanned in its own scope.
                end = skip_brackets(tokens, i + 2)
                child = Module(module.path + (name,), module.file)
                if scan(child, tokens[i + 3 : end - 1], os.path.join(sub_dir, name)):
                    module.children[name] = child
                i = end
                continue
        if t.text == "use" and t.kind == "ident" and (prev is None or prev.text != "::"):
            leaves = []
            j = parse_use_tree(tokens, i + 1, [], leaves)
            for segs, bound, line in leaves:
                module.named.append((segs, line))
                if bound is not None and bound != "_":
                    module.imports[bound] = segs
            i = j
            prev = None
            continue
        starts_path = prev is None or prev.text not in ("::", ".")
        if t.kind == "ident" and i + 1 < n and tokens[i + 1].text == "::" and starts_path:
            segs = [t.text]
            j = i + 1
            while j + 1 < n and tokens[j].text == "::" and tokens[j + 1].kind == "ident":
                segs.append(tokens[j + 1].text)
                j += 2
            module.named.append((tuple(segs), t.line))
            prev = tokens[j - 1]
            i = j
            continue
        prev = t
        i += 1
    return True


def child_file(folder, name, declared_in):
    """The file of `mod name;` declared in `declared_in`: `folder/name.rs` or
    `folder/name/mod.rs`."""
    flat = os.path.join(folder, name + ".rs")
    nested = os.path.join(folder, name, "mod.rs")
    if os.path.exists(flat):
        return flat
    if os.path.exists(nested):
        return nested
    raise FileNotFoundError(f"{declared_in}: no file for `mod {name};` ({flat} or {nested})")


def load_file(path, file, sub_dir):
    """Loads module `path` from `file`, and the modules it declares, whose files are in
    `sub_dir`; None for a file under `#![cfg(test)]`."""
    module = Module(path, file)
    with open(file, encoding="utf-8") as f:
        tokens = tokenize(f.read())
    return module if scan(module, tokens, sub_dir) else None


def all_modules(root):
    out = {root.path: root}
    for child in root.children.values():
        out.update(all_modules(child))
    return out


def resolve(modules, module, segs, seen=frozenset()):
    """The deepest existing module that the path `segs`, written in `module`, names, and whether
    every segment was a module; None for a path outside the crate (std, a dependency) or to an
    item of the module itself."""
    if not segs or segs[0] == "::":
        return None
    first, rest = segs[0], list(segs[1:])
    if first == "crate":
        at = ()
    elif first == "self":
        at = module.path
    elif first == "super":
        at = module.path[:-1]
    elif first in module.children:
        at = module.path + (first,)
    elif first in module.imports and first not in seen:
        # A name the module imported: the path it was imported by, then the rest, when that
        # path names a module (an imported type's `Type::f` names the type's module only).
        found = resolve(modules, module, module.imports[first], seen | {first})
        if found is None or not found[1]:
            return found
        at = found[0]
    else:
        return None
    for seg in rest:
        if seg == "super":
            at = at[:-1]
        elif at + (seg,) in modules:
            at = at + (seg,)
        else:
            return at, False
    return at, True


def edges_of(modules):
    edges = {}
    for module in modules.values():
        for segs, line in module.named:
            found = resolve(modules, module, segs)
            if found is None or found[0] == module.path:
                continue
            target = found[0]
            edges.setdefault(module.path, {}).setdefault(target, (module.file, line))
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively; returns the components with more than one node."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, {})))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def shortest_cycle(comp, edges):
    """One shortest cycle through the component's first module, by breadth-first search."""
    members = set(comp)
    start = comp[0]
    parent = {start: None}
    queue = [start]
    for node in queue:
        for nxt in sorted(edges.get(node, {})):
            if nxt not in members:
                continue
            if nxt == start:
                cycle = [node]
                while parent[cycle[-1]] is not None:
                    cycle.append(parent[cycle[-1]])
                return list(reversed(cycle)) + [start]
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return comp


def name(path):
    return "::".join(path) or "crate"


def check_crate(crate_dir):
    """Prints the crate's loops; returns how many it has."""
    crate = os.path.basename(os.path.normpath(crate_dir))
    roots = [f for f in ("lib.rs", "main.rs") if os.path.exists(os.path.join(crate_dir, "src", f))]
    if not roots:
        print(f"{crate}: no src/lib.rs or src/main.rs")
        return 0
    loops = 0
    for root_file in roots:
        label = crate if len(roots) == 1 or root_file == "lib.rs" else f"{crate} (binary)"
        src = os.path.join(crate_dir, "src")
        root = load_file((), os.path.join(src, root_file), src)
        modules = all_modules(root)
        edges = edges_of(modules)
        comps = strongly_connected(sorted(modules), edges)
        if not comps:
            print(f"{label}: {len(modules)} modules, no import loop")
            continue
        loops += len(comps)
        print(f"{label}: {len(modules)} modules, {len(comps)} import loop{'s' if len(comps) > 1 else ''}")
        for k, comp in enumerate(comps, 1):
            cycle = shortest_cycle(comp, edges)
            print(f"  loop {k}: {', '.join(name(m) for m in comp)}")
            print(f"    e.g. {' -> '.join(name(m) for m in cycle)}")
            members = set(comp)
            for a in comp:
                for b, (file, line) in sorted(edges.get(a, {}).items()):
                    if b in members:
                        where = os.path.relpath(file, crate_dir)
                        print(f"    {name(a)} -> {name(b)}  ({where}:{line})")
    return loops


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("crate_dirs", nargs="*", metavar="CRATE_DIR", help="crate folders (default: every crate under crates/)")
    parser.add_argument("--crates", help="comma-separated crate names to keep (subgraph-core or core)")
    args = parser.parse_args()
    dirs = args.crate_dirs
    if not dirs:
        crates = os.path.join(os.path.dirname(here), "crates")
        dirs = sorted(
            os.path.join(crates, d) for d in os.listdir(crates) if os.path.exists(os.path.join(crates, d, "Cargo.toml"))
        )
    if args.crates:
        keep = {c.strip() for c in args.crates.split(",") if c.strip()}
        keep |= {"subgraph-" + c for c in keep}
        dirs = [d for d in dirs if os.path.basename(os.path.normpath(d)) in keep]
        if not dirs:
            print(f"no crate matches --crates {args.crates}", file=sys.stderr)
            return 2
    loops = sum(check_crate(d) for d in dirs)
    return 1 if loops else 0


if __name__ == "__main__":
    if hasattr(signal, "SIGPIPE"):  # quiet when piped into `head`
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
