#!/usr/bin/env python3
"""Converts a binary PGM or PPM (P5/P6, maxval 255 or 65535) into a PNG.

The examples decode images with decodebin, but GStreamer's PNM decoder
lives in gst-plugins-bad, which nothing else here needs.  Standard library
only.

usage: pnm_to_png.py IN.pgm|IN.ppm OUT.png
"""
import struct
import sys
import zlib


def read_pnm(path):
    data = open(path, "rb").read()
    tokens, pos = [], 0
    while len(tokens) < 4:
        if data[pos:pos + 1].isspace():
            pos += 1
        elif data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
        else:
            start = pos
            while not data[pos:pos + 1].isspace():
                pos += 1
            tokens.append(data[start:pos])
    pos += 1  # the one whitespace byte after maxval
    channels = {b"P5": 1, b"P6": 3}.get(tokens[0])
    width, height, maxval = (int(t) for t in tokens[1:])
    if channels is None or maxval not in (255, 65535):
        sys.exit(f"{path}: only binary P5/P6 with maxval 255 or 65535 "
                 "can be converted")
    depth = 8 if maxval == 255 else 16
    size = width * height * channels * depth // 8
    pixels = data[pos:pos + size]
    if len(pixels) != size:
        sys.exit(f"{path}: the file ends before its {width}x{height} pixels")
    return width, height, channels, depth, pixels


def chunk(tag, body):
    return (struct.pack(">I", len(body)) + tag + body +
            struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF))


def write_png(path, width, height, channels, depth, pixels):
    # PNM and PNG both store 16-bit samples big-endian: rows copy as they are
    row = width * channels * depth // 8
    raw = b"".join(b"\0" + pixels[y * row:(y + 1) * row]
                   for y in range(height))
    colour_type = 0 if channels == 1 else 2
    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    write_png(sys.argv[2], *read_pnm(sys.argv[1]))
