#!/usr/bin/env python3
"""Example 5: the appsrc/appsink example of stereo-appsrc.c in Python.

Feeds stereodepth a textured scene whose right view is the left one shifted
by a known disparity, and prints the disparity at the image centre of every
output frame: it should read DISPARITY.

usage: stereo_appsrc.py [FRAMES [DISPARITY]]      (defaults: 10 and 8)
Needs python3-gi and gir1.2-gst-plugins-base-1.0; the plugin is found
through GST_PLUGIN_PATH (the build's gst/ folder).
"""
import random
import struct
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

WIDTH, HEIGHT, FPS = 160, 120, 30
CAPS = f"video/x-raw,format=GRAY8,width={WIDTH},height={HEIGHT},framerate={FPS}/1"


def render_view(texture, texture_width, offset, frame):
    """The texture from column offset on: left pixel x shows what right
    pixel x - disparity shows when the right view starts disparity later."""
    rows = b"".join(texture[y * texture_width + offset:
                            y * texture_width + offset + WIDTH]
                    for y in range(HEIGHT))
    buf = Gst.Buffer.new_wrapped(rows)
    buf.pts = frame * Gst.SECOND // FPS
    buf.duration = Gst.SECOND // FPS
    return buf


def centre_disparity(sample):
    """Disparity in pixels at the centre (16 * d in GRAY16_LE, 0 = invalid),
    or None when invalid."""
    stride = GstVideo.VideoInfo.new_from_caps(sample.get_caps()).stride[0]
    buf = sample.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    (v,) = struct.unpack_from("<H", info.data,
                              (HEIGHT // 2) * stride + 2 * (WIDTH // 2))
    buf.unmap(info)
    return v / 16 if v else None


def main():
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    disparity = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "stereodepth name=sd num-disparities=64 ! appsink name=sink sync=false "
        f"appsrc name=left format=time caps={CAPS} ! sd.sink_left "
        f"appsrc name=right format=time caps={CAPS} ! sd.sink_right")
    left = pipeline.get_by_name("left")
    right = pipeline.get_by_name("right")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)

    # a fixed-seed noise texture: matching needs texture
    texture_width = WIDTH + frames + disparity
    rng = random.Random(7)
    texture = bytes(rng.randrange(256) for _ in range(texture_width * HEIGHT))
    for i in range(frames):
        left.emit("push-buffer", render_view(texture, texture_width, i, i))
        right.emit("push-buffer",
                   render_view(texture, texture_width, i + disparity, i))
    left.emit("end-of-stream")
    right.emit("end-of-stream")

    received = 0
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        d = centre_disparity(sample)
        pts = sample.get_buffer().pts
        print(f"frame {received} at {pts / Gst.SECOND:.3f} s: disparity at the "
              f"centre ({WIDTH // 2}, {HEIGHT // 2}) = "
              + (f"{d:.2f} px" if d is not None else "invalid"))
        received += 1

    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    if msg:
        print(f"stereo_appsrc.py: {msg.parse_error()[0].message}",
              file=sys.stderr)
    pipeline.set_state(Gst.State.NULL)
    return 0 if received == frames else 1


if __name__ == "__main__":
    sys.exit(main())
