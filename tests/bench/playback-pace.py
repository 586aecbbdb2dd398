#!/usr/bin/python3
"""Two files played through stereodepth to a sink that syncs, as a viewer
plays recorded stereo video: what the sink renders and drops when the
backend is slower than the files' frame rate.

Makes two 1280x720 30/1 MJPEG files of 10 s (videotestsrc, jpegenc,
avimux) in a temporary folder, plays them through
  filesrc ! avidemux ! jpegdec ! queue ! stereodepth ! fakesink sync=true
  qos=true max-lateness=20000000   (a video sink's lateness)
and prints the element's counters, the sink's rendered and dropped
outputs and who posted QoS messages.  With --no-sync the sink does not sync
(a recording): every pair must then be computed.

usage: tests/bench/playback-pace.py PLUGIN_DIR [--no-sync]
           [PROPERTY=VALUE ...]    (stereodepth's, e.g. backend=cpu)
Needs GStreamer's Python bindings (python3-gi, gir1.2-gstreamer-1.0) and
the good plugins (jpegenc, jpegdec, avimux, avidemux).
"""
import os
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

SECONDS = 10
SIZE = "width=1280,height=720,framerate=30/1,format=I420"


def make_file(path, speed):
    """A moving test pattern; the right view moves faster, so the two
    differ (what they show does not change the time a pair takes)."""
    subprocess.run(
        ["gst-launch-1.0", "-q", "videotestsrc",
         f"num-buffers={SECONDS * 30}", "pattern=smpte",
         f"horizontal-speed={speed}", "!", f"video/x-raw,{SIZE}", "!",
         "jpegenc", "!", "avimux", "!", "filesink", f"location={path}"],
        check=True)


def play(folder, sync, properties):
    pipeline = Gst.parse_launch(
        f"stereodepth name=s {' '.join(properties)} "
        f"! fakesink name=k sync={'true' if sync else 'false'} qos=true "
        "max-lateness=20000000 "
        f"filesrc location={folder}/left.avi ! avidemux ! jpegdec "
        "! queue ! s.sink_left "
        f"filesrc location={folder}/right.avi ! avidemux ! jpegdec "
        "! queue ! s.sink_right")
    bus = pipeline.get_bus()
    qos = {}
    start = time.monotonic()
    pipeline.set_state(Gst.State.PLAYING)
    while True:
        msg = bus.timed_pop_filtered(
            100 * Gst.MSECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR
            | Gst.MessageType.QOS)
        if msg is None:
            continue
        if msg.type == Gst.MessageType.QOS:
            name = msg.src.get_name()
            qos[name] = qos.get(name, 0) + 1
            continue
        if msg.type == Gst.MessageType.ERROR:
            sys.exit(f"error: {msg.parse_error()[0].message}")
        break
    wall = time.monotonic() - start
    element = pipeline.get_by_name("s")
    stats = pipeline.get_by_name("k").get_property("stats")
    print(f"{' '.join(properties) or 'defaults'}, sink sync={sync}: "
          f"{wall:.1f} s, computed "
          f"{element.get_property('frames-processed')}, skipped late "
          f"{element.get_property('pairs-late')}, unpaired frames "
          f"{element.get_property('frames-dropped')}, "
          f"{element.get_property('mean-process-time') / 1e6:.1f} ms a pair;"
          f" sink rendered {stats.get_value('rendered')}, dropped "
          f"{stats.get_value('dropped')}; QoS messages {qos}")
    pipeline.set_state(Gst.State.NULL)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    os.environ["GST_PLUGIN_PATH"] = sys.argv[1]
    sync = "--no-sync" not in sys.argv[2:]
    properties = [a for a in sys.argv[2:] if a != "--no-sync"]
    Gst.init(None)
    with tempfile.TemporaryDirectory() as folder:
        make_file(f"{folder}/left.avi", 0)
        make_file(f"{folder}/right.avi", 8)
        play(folder, sync, properties)


if __name__ == "__main__":
    main()
