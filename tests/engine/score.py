#!/usr/bin/env python3
"""An independent scorer: reads a disparity PGM written in the output
contract (16-bit, value = 16 * d, 0 = invalid) and a Middlebury set folder,
and prints bad>1 over all ground-truth pixels with invalid counted as bad.
Standard library only, and no code shared with the C side."""
import csv
import os
import sys


def read_pnm(path):
    with open(path, "rb") as f:
        data = f.read()
    tokens, pos = [], 0
    while len(tokens) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        tokens.append(data[pos:end])
        pos = end
    pos += 1  # the single whitespace before the samples
    magic, w, h, maxval = tokens[0], int(tokens[1]), int(tokens[2]), int(tokens[3])
    channels = 3 if magic == b"P6" else 1
    size = 2 if maxval > 255 else 1
    raw = data[pos:pos + w * h * channels * size]
    if size == 2:
        values = [raw[i] << 8 | raw[i + 1] for i in range(0, len(raw), 2)]
    else:
        values = list(raw)
    return w, h, values[::channels] if channels == 3 else values


def main():
    disp_path, set_dir = sys.argv[1], sys.argv[2].rstrip("/")
    name = os.path.basename(set_dir)
    with open(os.path.join(set_dir, "..", "sets.tsv")) as f:
        row = next(r for r in csv.DictReader(f, delimiter="\t") if r["set"] == name)
    divisor = float(row["gt_decode"].split("/")[1])
    w, h, disp = read_pnm(disp_path)
    gw, gh, gt = read_pnm(os.path.join(set_dir, row["gt"]))
    assert (w, h) == (gw, gh), "sizes differ"
    total = bad = 0
    for d, g in zip(disp, gt):
        if g == 0:
            continue
        total += 1
        if d == 0 or abs(d / 16.0 - g / divisor) > 1.0:
            bad += 1
    print(f"bad>1 {100.0 * bad / total:.2f} % of {total} ground-truth pixels")


if __name__ == "__main__":
    main()
