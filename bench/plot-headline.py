#!/usr/bin/env python3
"""The README's headline plot: subgraph against its peers, from bench/results/headline.csv.

    python3 bench/plot-headline.py            writes docs/headline.svg
    python3 bench/plot-headline.py --check    fails when docs/headline.svg is not what it writes

One horizontal bar per row of the CSV: the speed-up over the peer (the peer's time over ours,
or the ratio the result file reports, as its `statistic` column says), on a log scale. Every
row names the result files (under bench/results/) its two numbers come from; a row whose file
is missing is an error. Python 3 only, no packages: the SVG is written by hand.
"""

import csv
import html
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CSV = ROOT / "bench" / "results" / "headline.csv"
SVG = ROOT / "docs" / "headline.svg"

COLOURS = {"GPU": "#76b900", "CPU": "#1f77b4", "Python": "#9467bd"}
WIDTH, LEFT, RIGHT, TOP, ROW, BAR = 1000, 330, 190, 58, 38, 20


def rows():
    out = []
    with CSV.open(newline="") as f:
        for r in csv.DictReader(f):
            for column in ("source", "peer_source"):
                if not (CSV.parent / r[column]).is_file():
                    sys.exit(f"{CSV.name}: {r['comparison']}: {r[column]} is not a file under bench/results/")
            if r["speedup"]:
                speedup = float(r["speedup"])
            elif r["ours_value"] and r["peer_value"]:
                speedup = float(r["peer_value"]) / float(r["ours_value"])
            else:
                sys.exit(f"{CSV.name}: {r['comparison']}: neither a speed-up nor both values")
            out.append((r, speedup))
    return out


def detail(r):
    """'9.4 s vs 0.24 s' where the speed-up is the ratio of the row's values, else what the
    speed-up is (a median of ratios, say)."""
    if r["speedup"] or not (r["ours_value"] and r["peer_value"]):
        return r["statistic"]

    def one(v):
        v = float(v)
        if r["unit"] == "ms" and v >= 1000:
            return f"{v / 1000:g} s"
        return f"{v:g} {r['unit']}"

    return f"{one(r['peer_value'])} vs {one(r['ours_value'])}"


def colour(ours):
    return next((c for k, c in COLOURS.items() if ours.startswith(k)), "#7f7f7f")


def svg(data):
    top_decade = max(1, math.ceil(math.log10(max(s for _, s in data))))
    plot = WIDTH - LEFT - RIGHT
    height = TOP + ROW * len(data) + 64

    def x(v):
        return LEFT + plot * math.log10(max(v, 1)) / top_decade

    e = html.escape
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="{WIDTH / 2:g}" y="22" text-anchor="middle" font-size="15" font-weight="bold">'
        "subgraph against its peers: speed-up (peer time / ours), log scale</text>",
    ]
    # Decades and their grid lines.
    for d in range(top_decade + 1):
        gx = x(10**d)
        out.append(f'<line x1="{gx:.1f}" y1="{TOP - 8}" x2="{gx:.1f}" y2="{TOP + ROW * len(data)}" stroke="#dddddd"/>')
        out.append(f'<text x="{gx:.1f}" y="{TOP - 12}" text-anchor="middle" fill="#555555">{10**d:g}×</text>')
    for i, (r, s) in enumerate(data):
        y = TOP + ROW * i
        out.append(f'<text x="{LEFT - 8}" y="{y + 12}" text-anchor="end" font-weight="bold">'
                   f'{e(r["comparison"])}</text>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 26}" text-anchor="end" fill="#555555">'
                   f'{e(r["ours"])} vs {e(r["peer"])}, {e(r["machine"])}</text>')
        out.append(
            f'<rect x="{LEFT}" y="{y + 5}" width="{max(x(s) - LEFT, 1.5):.1f}" height="{BAR}" '
            f'fill="{colour(r["ours"])}"><title>{e(r["statistic"])}, {e(r["machine"])}; '
            f'{e(r["source"])}</title></rect>'
        )
        value = f"{s:.3g}×" if s < 100 else f"{s:.0f}×"
        out.append(f'<text x="{x(s) + 6:.1f}" y="{y + 19}"><tspan font-weight="bold">{value}</tspan>'
                   f'<tspan dx="6" fill="#555555">{e(detail(r))}</tspan></text>')
    y = TOP + ROW * len(data) + 22
    lx = LEFT
    for name, c in COLOURS.items():
        out.append(f'<rect x="{lx}" y="{y - 10}" width="12" height="12" fill="{c}"/>')
        what = {"GPU": "ours on the GPU (one H200)", "CPU": "ours on one CPU thread",
                "Python": "the Python package (all cores)"}[name]
        out.append(f'<text x="{lx + 16}" y="{y}">{e(what)}</text>')
        lx += 230
    out.append(f'<text x="{WIDTH / 2:g}" y="{y + 24}" text-anchor="middle" fill="#555555">'
               "Each bar's numbers and result files: bench/results/headline.csv "
               "(made by bench/plot-headline.py)</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    text = svg(rows())
    if sys.argv[1:] == ["--check"]:
        if not SVG.is_file() or SVG.read_text() != text:
            sys.exit(f"{SVG.relative_to(ROOT)} is not what bench/plot-headline.py writes from "
                     f"{CSV.relative_to(ROOT)}: run python3 bench/plot-headline.py")
        return
    if sys.argv[1:]:
        sys.exit(__doc__)
    SVG.write_text(text)
    print(f"wrote {SVG.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
