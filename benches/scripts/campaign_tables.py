#!/usr/bin/env python3
"""Turns the output of a stress campaign (benches/RESULTS.md, "Commands")
into the markdown tables of benches/RESULTS.md and the plot docs/scaling.svg.

usage: campaign_tables.py CAMPAIGN_OUTPUT [SVG_OUT]
"""
import math
import re
import statistics
import sys

SCENES = ["large_pyramid_2d", "large_pyramid_3d", "falling_boxes", "many_pyramids_2d", "many_pyramids_3d"]
RUN = re.compile(r"engine (\w+)(?: \(parallel build\))? scene (\S+)(?: --base (\d+))? bodies (\d+) steps \d+ threads (\d+): median ([\d.]+) ms/step, p95 ([\d.]+)")
STAB = re.compile(r"stability: largest sideways drift ([\d.]+) m, largest sink ([\d.]+) m, moved more than 1 m: (\d+)")
STAGES = re.compile(r"stages \(mean ms/step\): broad phase ([\d.]+), narrow phase ([\d.]+), solver ([\d.]+), islands and events ([\d.]+)")
MACHINE = re.compile(r"machine (before|after) the run: two threads at once did ([\d.]+)x the work of one in compute, ([\d.]+)x in memory reads")
HEADER = re.compile(r"## (?:round (\d+) scene (\S+)|scaling base (\d+))")


def parse(path):
    """Runs keyed by (round or 'scaling', scene or base), each a dict."""
    sections, key, last = {}, None, None
    for line in open(path):
        if m := HEADER.match(line):
            key = (int(m[1]), m[2]) if m[1] else ("scaling", int(m[3]))
            sections[key] = {"runs": {}, "machine": {}}
        elif m := RUN.match(line):
            last = {"bodies": int(m[4]), "median": float(m[6]), "p95": float(m[7])}
            sections[key]["runs"][(m[1], int(m[5]))] = last
        elif m := STAB.match(line):
            last["stability"] = (float(m[1]), float(m[2]), int(m[3]))
        elif m := STAGES.match(line):
            last["stages"] = tuple(float(x) for x in m.groups())
        elif m := MACHINE.match(line):
            sections[key]["machine"][m[1]] = (float(m[2]), float(m[3]))
    return sections


def label(scene):
    return "falling_boxes (3D)" if scene == "falling_boxes" else scene


def stab(run):
    d, s, k = run["stability"]
    return f"{d:.4f} / {s:.4f} / {k}"


def print_alone(sections, rounds):
    """A campaign of tumble alone (`--engine tumble --threads 1,2`)."""
    print("| scene | one / two threads, ms/step, and speed-up, rounds " + ", ".join(map(str, rounds)) + " | machine, memory reads (before, after) |")
    print("|---|---|---|")
    for s in SCENES:
        keys = [(r, s) for r in rounds if (r, s) in sections and ("tumble", 2) in sections[(r, s)]["runs"]]
        if not keys:
            continue
        cells = []
        for k in keys:
            one, two = (sections[k]["runs"][("tumble", t)]["median"] for t in (1, 2))
            cells.append(f"{one:.3f} / {two:.3f} ({one / two:.2f}x)")
        mem = "; ".join(f"{m['before'][1]:.2f}, {m['after'][1]:.2f}" for m in (sections[k]["machine"] for k in keys) if m)
        print(f"| {label(s)} | " + "; ".join(cells) + f" | {mem} |")


def main():
    sections = parse(sys.argv[1])
    rounds = sorted({k[0] for k in sections if k[0] != "scaling"})
    if not any(("rapier", 1) in v["runs"] for v in sections.values()):
        print_alone(sections, rounds)
        return
    copies = [("tumble", 1), ("tumble", 2), ("rapier", 1), ("rapier", 2)]

    def runs(scene, copy):
        return [sections[(r, scene)]["runs"][copy] for r in rounds if (r, scene) in sections and copy in sections[(r, scene)]["runs"]]

    def median(scene, copy):
        return statistics.median(r["median"] for r in runs(scene, copy))

    print("| scene | bodies | tumble 1 thread | tumble 2 threads | tumble speed-up | rapier 1 thread | rapier 2 threads | tumble drift / sink / moved | rapier drift / sink / moved |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for s in SCENES:
        if not runs(s, ("tumble", 1)):
            continue
        t1, t2, r1, r2 = (median(s, c) for c in copies)
        print(f"| {label(s)} | {runs(s, ('tumble', 1))[0]['bodies']} | {t1:.2f} | {t2:.2f} | {t1 / t2:.2f}x | {r1:.2f} | {r2:.2f} | {stab(runs(s, ('tumble', 1))[0])} | {stab(runs(s, ('rapier', 1))[0])} |")
    print()
    print("| scene | tumble 1 thread | tumble 2 threads | rapier 1 thread | rapier 2 threads | tumble / rapier, 1 thread, per round |")
    print("|---|---|---|---|---|---|")
    for s in SCENES:
        if not runs(s, ("tumble", 1)):
            continue
        cols = [", ".join(f"{r['median']:.2f}" for r in runs(s, c)) for c in copies]
        ratio = ", ".join(f"{t['median'] / r['median']:.2f}" for t, r in zip(runs(s, ("tumble", 1)), runs(s, ("rapier", 1))))
        print(f"| {label(s)} | " + " | ".join(cols) + f" | {ratio} |")
    print()
    print("| scene | tumble | rapier | machine, compute (before, after) | machine, memory reads (before, after) |")
    print("|---|---|---|---|---|")
    for s in SCENES:
        keys = [(r, s) for r in rounds if (r, s) in sections and all(c in sections[(r, s)]["runs"] for c in copies)]
        if not keys:
            continue
        ups = {e: ", ".join(f"{sections[k]['runs'][(e, 1)]['median'] / sections[k]['runs'][(e, 2)]['median']:.2f}" for k in keys) for e in ("tumble", "rapier")}
        mach = [sections[k]["machine"] for k in keys]
        comp = "; ".join(f"{m['before'][0]:.2f}, {m['after'][0]:.2f}" for m in mach if m)
        mem = "; ".join(f"{m['before'][1]:.2f}, {m['after'][1]:.2f}" for m in mach if m)
        print(f"| {label(s)} | {ups['tumble']} | {ups['rapier']} | {comp} | {mem} |")
    print()
    print("| scene | broad phase | narrow phase | solver | islands, events |")
    print("|---|---:|---:|---:|---:|")
    for s in SCENES:
        for t in (1, 2):
            st = [r["stages"] for r in runs(s, ("tumble", t))]
            if st:
                cells = " | ".join(f"{statistics.median(x[i] for x in st):.2f}" for i in range(4))
                print(f"| {s}, {t} thread{'s' if t > 1 else ''} | {cells} |")
    scaling = sorted(k[1] for k in sections if k[0] == "scaling")
    if not scaling:
        return
    print()
    print("| base | bodies | tumble | rapier |")
    print("|---:|---:|---:|---:|")
    points = {"tumble": [], "rapier": []}
    for b in scaling:
        rs = sections[("scaling", b)]["runs"]
        t, r = rs[("tumble", 1)], rs[("rapier", 1)]
        print(f"| {b} | {t['bodies']} | {t['median']:.3f} | {r['median']:.3f} |")
        points["tumble"].append((t["bodies"], t["median"]))
        points["rapier"].append((r["bodies"], r["median"]))
    if len(sys.argv) > 2:
        write_svg(sys.argv[2], points)


def write_svg(path, points):
    left, top, width, height = 70, 40, 420, 320
    x_lo, x_hi, y_lo, y_hi = math.log10(30), math.log10(20000), -2.0, 2.0  # log10 ranges

    def x(bodies):
        return left + (math.log10(bodies) - x_lo) / (x_hi - x_lo) * width

    def y(ms):
        return top + height - (math.log10(ms) - y_lo) / (y_hi - y_lo) * height

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="640" height="420" viewBox="0 0 640 420" font-family="sans-serif" font-size="12">',
        '<rect width="640" height="420" fill="white"/>',
        f'<text x="{left}" y="22" font-size="14" font-weight="bold">Time per step against body count: pyramid_2d, 1 thread, 500 steps</text>',
    ]
    for e, text in zip(range(-2, 3), ["0.01", "0.1", "1", "10", "100"]):
        yy = y(10.0**e)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + width}" y2="{yy:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{text}</text>')
    for e, text in zip(range(2, 5), ["100", "1,000", "10,000"]):
        xx = x(10.0**e)
        out.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{top + height}" stroke="#ddd"/>')
        out.append(f'<text x="{xx:.1f}" y="{top + height + 16}" text-anchor="middle">{text}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" stroke="#333"/>')
    out.append(f'<text x="{left + width / 2:.0f}" y="402" text-anchor="middle">bodies (log scale)</text>')
    out.append(f'<text transform="translate(20 {top + height / 2:.0f}) rotate(-90)" text-anchor="middle">ms/step (log scale)</text>')
    for i, (engine, name, colour) in enumerate([("tumble", "tumble", "#d62728"), ("rapier", "rapier 0.36", "#1f77b4")]):
        pts = points[engine]
        out.append('<polyline points="' + " ".join(f"{x(b):.1f},{y(m):.1f}" for b, m in pts) + f'" fill="none" stroke="{colour}" stroke-width="2"/>')
        for b, m in pts:
            out.append(f'<circle cx="{x(b):.1f}" cy="{y(m):.1f}" r="3.5" fill="{colour}"><title>{name}: {b} bodies, {m:.3f} ms/step</title></circle>')
        ly = 60 + 20 * i
        out.append(f'<line x1="502" y1="{ly}" x2="522" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="528" y="{ly + 4}">{name}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
