#!/usr/bin/env python3
"""Runs candidate parameter settings over every shared stereo set and prints
the table the defaults are chosen from (docs/algorithms.md, "Defaults").

Every set of every data folder is used, each with its suggested disparity
count; no value depends on a set.  Each candidate runs twice per set: as
shipped (fill-holes off for SGM) and dense (fill-holes on).  Columns:

  off     mean bad>1 over all ground-truth pixels, invalid counted as bad,
          fill-holes off (the defaults' measure)
  est     mean bad>1 over the estimated ground-truth pixels, fill-holes off
  inv     mean invalid share of the ground-truth sets, fill-holes off
  kitti   the largest invalid share of the sets without ground truth
  dense   mean bad>1 over all ground-truth pixels, fill-holes on
  score   off + dense: what the ranking sorts by; a candidate whose kitti
          share is above --max-invalid is ranked after every other

usage: tests/sweep-defaults.py [--sweep build/tests/sd-sweep]
         [--data DIR ...] [--backend cpu|cuda] [-j N] [--grid NAME]
         [--candidate "--p1 10 --p2 120" ...] [--detail N] [--tsv FILE]

The runs are made by sd-sweep (tests/bench/sd-sweep.c), -j processes of it,
each loading every set once; on the GPU a few processes keep it busy.

--grid names a built-in list (sgm, hbp, tiled-bp; see GRIDS); --candidate
adds one setting (sd-bench options) and may be repeated.  Candidates are
given relative to the current defaults: an option not named keeps its
default.  --detail prints every set's numbers for the N best.
"""
import argparse
import concurrent.futures
import itertools
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = [os.path.join(HERE, "..", "..", "shared", "data", d)
        for d in ("stereo", "stereo-extra")]


def grid(**axes):
    """Every combination of the axes, as sd-bench option strings."""
    names = list(axes)
    for values in itertools.product(*(axes[n] for n in names)):
        yield " ".join(f"--{n} {v}" for n, v in zip(names, values)
                       if v is not None)


GRIDS = {
    # penalties on the two census windows (cost ranges 0..62 and 0..31),
    # kept where every path cost fits 8 bits on the GPU (cost max + p2 <=
    # 255), adaptive P2, the uniqueness margin and the left-right tolerance
    "sgm": lambda: itertools.chain(
        grid(**{"census-window": ["9x7"],
                "p1": [8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64],
                "p2": [96, 128, 160, 193], "p2-adaptive": ["on", "off"],
                "uniqueness": [0, 5], "lr-check": [1, 2, 3]}),
        grid(**{"census-window": ["cs9x7"], "p1": [6, 8, 10, 14],
                "p2": [120, 160, 224], "p2-adaptive": ["on", "off"],
                "uniqueness": [0, 5], "lr-check": [1, 2, 3]})),
    # hbp on census costs (the default cost): data weight and truncation
    # (in differing census bits), smoothness truncation (0: scales with the
    # disparity range) and iterations
    "hbp": lambda: grid(**{"algorithm": ["hbp"],
                           "data-weight": [0.05, 0.1, 0.15, 0.2, 0.3],
                           "data-trunc": [10, 15, 20, 30],
                           "disc-trunc": [0, 12, 20, 30],
                           "iterations": [7, 14]}),
    "tiled-bp": lambda: grid(**{"algorithm": ["tiled-bp"],
                                "data-weight": [0.05, 0.1, 0.2],
                                "disc-trunc": [0, 4, 8],
                                "sigma": [0, 0.7]}),
}


def run_shard(sweep, backend, data, candidates, tsv, results):
    """One sd-sweep process over a share of the candidates."""
    cmd = [sweep, "--backend", backend]
    for d in data:
        cmd += ["--data", d]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    p.stdin.write("".join(c + "\n" for c in candidates))
    p.stdin.close()
    for line in p.stdout:
        c, s, fill, bad1, est, invalid = line.rstrip("\n").split("\t")
        r = {"invalid": float(invalid)}
        if bad1:
            r.update(bad1=float(bad1), est=float(est))
        results[(c, s, fill)] = r
        if tsv:
            tsv.write(line)
            tsv.flush()
    if p.wait() != 0:
        sys.exit(f"sweep: {' '.join(cmd)} failed")


def set_names(folder):
    with open(os.path.join(folder, "sets.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return [r[0] for r in rows[1:] if r and r[0]]


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def summarise(results, sets, max_invalid):
    gt = [s for s in sets if "bad1" in results[(s, "off")]]
    free = [s for s in sets if s not in gt]
    row = {
        "off": mean(results[(s, "off")]["bad1"] for s in gt),
        "est": mean(results[(s, "off")]["est"] for s in gt),
        "inv": mean(results[(s, "off")]["invalid"] for s in gt),
        "kitti": max((results[(s, "off")]["invalid"] for s in free),
                     default=0.0),
        "dense": mean(results[(s, "on")]["bad1"] for s in gt),
    }
    row["score"] = row["off"] + row["dense"]
    row["ok"] = row["kitti"] <= max_invalid
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sweep", default=os.path.join("build", "tests",
                                                     "sd-sweep"))
    ap.add_argument("--data", action="append")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    ap.add_argument("--grid", choices=sorted(GRIDS))
    ap.add_argument("--candidate", action="append", default=[])
    ap.add_argument("--max-invalid", type=float, default=15.0)
    ap.add_argument("--detail", type=int, default=1)
    ap.add_argument("--tsv", help="also write every number to this file")
    args = ap.parse_args()

    candidates = list(args.candidate)
    if args.grid:
        candidates += list(GRIDS[args.grid]())
    if not candidates:
        candidates = [""]           # the current defaults
    data = args.data or DATA
    sets = [s for folder in data for s in set_names(folder)]

    # the file is written as results come, so a run cut short keeps them
    tsv = open(args.tsv, "w") if args.tsv else None
    if tsv:
        tsv.write("candidate\tset\tfill\tbad1\test\tinvalid\n")
    results = {}
    shards = [candidates[i::args.j] for i in range(args.j)]
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        for f in [pool.submit(run_shard, args.sweep, args.backend, data,
                              shard, tsv, results) for shard in shards if shard]:
            f.result()

    rows = []
    for c in candidates:
        per_set = {(s, fill): results[(c, s, fill)] for s in sets
                   for fill in ("off", "on")}
        rows.append((summarise(per_set, sets, args.max_invalid), c, per_set))
    rows.sort(key=lambda r: (not r[0]["ok"], r[0]["score"]))

    print(f"{len(candidates)} candidates, {len(sets)} sets, backend "
          f"{args.backend}; bad>1 in percent (see the top of this script)")
    print(f"{'score':>6} {'off':>6} {'est':>6} {'inv':>6} {'kitti':>6} "
          f"{'dense':>6}  candidate (sd-bench options; none = defaults)")
    for row, c, _ in rows:
        mark = "" if row["ok"] else "  [kitti over the limit]"
        print(f"{row['score']:6.2f} {row['off']:6.2f} {row['est']:6.2f} "
              f"{row['inv']:6.2f} {row['kitti']:6.2f} {row['dense']:6.2f}  "
              f"{c or '(defaults)'}{mark}")
    for row, c, per_set in rows[:args.detail]:
        print(f"\nper set: {c or '(defaults)'}")
        print(f"{'set':<24} {'off':>6} {'est':>6} {'inv':>6} {'dense':>6}")
        for s in sets:
            off, on = per_set[(s, "off")], per_set[(s, "on")]
            name = s
            if "bad1" in off:
                print(f"{name:<24} {off['bad1']:6.2f} {off['est']:6.2f} "
                      f"{off['invalid']:6.2f} {on['bad1']:6.2f}")
            else:
                print(f"{name:<24} {'-':>6} {'-':>6} {off['invalid']:6.2f} "
                      f"{'-':>6}")


if __name__ == "__main__":
    main()
