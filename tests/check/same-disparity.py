#!/usr/bin/env python3
"""Compares a disparity the element wrote (raw GRAY16_LE, rows packed) with
the one sd-bench wrote (16-bit binary PGM, big-endian) pixel by pixel.

usage: same-disparity.py EXPECTED.pgm ACTUAL.raw
Exits 0 when every pixel is equal and the disparity is not all invalid.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples"))
from pnm_to_png import read_pnm  # noqa: E402


def main():
    expected_path, actual_path = sys.argv[1:3]
    width, height, channels, depth, pixels = read_pnm(expected_path)
    if channels != 1 or depth != 16:
        sys.exit(f"{expected_path}: not a 16-bit PGM")
    expected = struct.unpack(f">{width * height}H", pixels)
    raw = open(actual_path, "rb").read()
    if len(raw) != 2 * width * height:
        sys.exit(f"{actual_path}: {len(raw)} bytes, expected a "
                 f"{width}x{height} GRAY16 frame")
    actual = struct.unpack(f"<{width * height}H", raw)
    differ = sum(a != e for a, e in zip(actual, expected))
    valid = sum(e != 0 for e in expected)
    print(f"{differ} of {width * height} pixels differ "
          f"({valid} valid in the expected disparity)")
    sys.exit(1 if differ or not valid else 0)


main()
