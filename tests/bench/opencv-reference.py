#!/usr/bin/python3
"""OpenCV's StereoSGBM on the shared sets, scored as test-accuracy scores
ours: bad>1 over all ground-truth pixels with invalid counted as bad.

This is the outside reference of issue 11 for the sets libSGM was not
measured on. It is a measuring tool, not a test, and needs Debian's
python3-opencv (4.6), python3-numpy and python3-pil, which the test suite
does not install.

Settings, as the issue measured OpenCV: 8 paths (MODE_HH), block 5, P1 200,
P2 800, uniqueness 10, disp12MaxDiff 1, each set's suggested disparity count
(sets.tsv), on the grey images. OpenCV marks invalid pixels with a negative
value.

usage: tests/bench/opencv-reference.py DATA_DIR [SET ...]
"""
import os
import sys

import cv2
import numpy as np
from PIL import Image


def read_sets(data_dir):
    with open(os.path.join(data_dir, "sets.tsv")) as f:
        header, *rows = [line.rstrip("\n").split("\t") for line in f]
    return {r[0]: dict(zip(header, r)) for r in rows if r and r[0]}


def ground_truth(data_dir, row):
    if not row["gt"]:
        return None
    bits, divisor = row["gt_decode"].split("/")
    gt = np.array(Image.open(os.path.join(data_dir, row["set"], row["gt"])))
    return gt.astype(np.float64) / float(divisor)


def main():
    data_dir = sys.argv[1]
    sets = read_sets(data_dir)
    names = sys.argv[2:] or list(sets)
    for name in names:
        row = sets[name]
        grey = [np.array(Image.open(os.path.join(data_dir, name,
                                                 row[side])).convert("L"))
                for side in ("left", "right")]
        ndisp = int(row["ndisp_x16"])
        sgbm = cv2.StereoSGBM_create(
            minDisparity=0, numDisparities=ndisp, blockSize=5, P1=200,
            P2=800, disp12MaxDiff=1, uniquenessRatio=10,
            mode=cv2.STEREO_SGBM_MODE_HH)
        disp = sgbm.compute(grey[0], grey[1]).astype(np.float64) / 16.0
        invalid = disp < 0
        gt = ground_truth(data_dir, row)
        if gt is None:
            print(f"{name:<24} D={ndisp:<3} invalid {100 * invalid.mean():6.2f}"
                  " % of all pixels")
            continue
        counted = gt > 0
        bad = (np.abs(disp - gt) > 1.0) | invalid
        print(f"{name:<24} D={ndisp:<3} bad>1 {100 * bad[counted].mean():6.2f}"
              f" %, invalid {100 * invalid[counted].mean():6.2f} % of "
              f"{counted.sum()} ground-truth pixels")


if __name__ == "__main__":
    main()
