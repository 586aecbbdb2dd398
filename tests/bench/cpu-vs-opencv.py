#!/usr/bin/python3
"""Our CPU backends against OpenCV's StereoSGBM, timed in one run on the
same machine, printed as the markdown table of docs/performance.md.

A measuring tool, not a test: it needs a built sd-bench and Debian's
python3-opencv and python3-numpy, which the test suite does
not install.

Each workload runs sd-bench with the cpu backend (the best instruction set
this processor runs, all cores), the same with SD_CPU_ISA=portable, and the
reference backend; OpenCV runs StereoSGBM with block 5 in its 3-way and
8-path (MODE_HH) modes on the same grey images with all its threads.
Times are medians over --repeat runs, after one warm-up.

usage: tests/bench/cpu-vs-opencv.py SD_BENCH DATA_DIR [--repeat N]
"""
import os
import re
import subprocess
import sys
import time

import cv2
import numpy as np

# name, set (or WxH for a synthetic pair), disparities, sd-bench options
WORKLOADS = [
    ("Tsukuba, 64 disparities, 8 paths", "mb2001_tsukuba", 64, []),
    ("Cones half, 128 disparities, 8 paths", "mb2003_cones_half", 128, []),
    ("640x480 synthetic, 64 disparities, 8 paths", "640x480", 64, []),
    ("64x48 synthetic, 16 disparities", "64x48", 16, []),
    ("HBP Tsukuba, defaults", "mb2001_tsukuba", None, ["--algorithm", "hbp"]),
]


def sd_bench(bench, data_dir, source, ndisp, options, backend, repeat,
             isa=None):
    args = [bench, "--backend", backend, "--repeat", str(repeat)]
    if "x" in source and not os.path.isdir(os.path.join(data_dir, source)):
        args += ["--synthetic", source]
    else:
        args += ["--set", os.path.join(data_dir, source)]
    if ndisp:
        args += ["--num-disparities", str(ndisp)]
    env = dict(os.environ)
    env.pop("SD_CPU_ISA", None)
    if isa:
        env["SD_CPU_ISA"] = isa
    out = subprocess.run(args + options, env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(re.search(r"time: median ([0-9.]+) ms", out).group(1))


def pair_images(data_dir, source, bench):
    """The grey pair sd-bench matched (for a synthetic pair, saved by
    sd-bench's --save-pair)."""
    if "x" in source and not os.path.isdir(os.path.join(data_dir, source)):
        folder = f"/tmp/cpu-vs-opencv-{source}"
        subprocess.run([bench, "--synthetic", source, "--backend", "cpu",
                        "--save-pair", folder], check=True,
                       capture_output=True)
        files = sorted(f for f in os.listdir(folder)
                       if f.startswith(("left", "right")))
        left = next(f for f in files if f.startswith("left"))
        right = next(f for f in files if f.startswith("right"))
        paths = [os.path.join(folder, left), os.path.join(folder, right)]
    else:
        with open(os.path.join(data_dir, "sets.tsv")) as f:
            header, *rows = [line.rstrip("\n").split("\t") for line in f]
        row = next(dict(zip(header, r)) for r in rows if r[0] == source)
        paths = [os.path.join(data_dir, source, row[side])
                 for side in ("left", "right")]
    return [cv2.imread(p, cv2.IMREAD_GRAYSCALE) for p in paths]


def opencv_ms(images, ndisp, mode, repeat):
    sgbm = cv2.StereoSGBM_create(minDisparity=0, numDisparities=ndisp,
                                 blockSize=5, P1=200, P2=800, mode=mode)
    sgbm.compute(images[0], images[1])
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        sgbm.compute(images[0], images[1])
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def ms(value):
    return "-" if value is None else (f"{value:.1f} ms" if value < 1000
                                      else f"{value / 1e3:.2f} s")


def main():
    bench, data_dir = sys.argv[1], sys.argv[2]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) \
        if "--repeat" in sys.argv else 9
    print(f"OpenCV {cv2.__version__}, {os.cpu_count()} cores, "
          f"median of {repeat} runs\n")
    print("| workload | cpu (best build) | cpu, portable | reference "
          "| OpenCV 3-way | OpenCV 8-path (MODE_HH) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, source, ndisp, options in WORKLOADS:
        cpu = sd_bench(bench, data_dir, source, ndisp, options, "cpu",
                       repeat)
        portable = sd_bench(bench, data_dir, source, ndisp, options, "cpu",
                            repeat, "portable")
        reference = sd_bench(bench, data_dir, source, ndisp, options,
                             "reference", max(3, repeat // 3))
        three_way = eight_path = None
        if ndisp:
            images = pair_images(data_dir, source, bench)
            three_way = opencv_ms(images, ndisp,
                                  cv2.STEREO_SGBM_MODE_SGBM_3WAY, repeat)
            eight_path = opencv_ms(images, ndisp, cv2.STEREO_SGBM_MODE_HH,
                                   repeat)
        print(f"| {name} | {ms(cpu)} | {ms(portable)} | {ms(reference)} "
              f"| {ms(three_way)} | {ms(eight_path)} |")


if __name__ == "__main__":
    main()
