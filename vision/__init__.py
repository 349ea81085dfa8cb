"""dicetable's eyes: read pip dice from camera frames, and refuse rather than guess.

This package never imports :mod:`table`; it knows nothing of games.
"""

import os

# OpenCV refuses to decode an image of more pixels than this variable says, read once when
# cv2 is imported (its default is a gigapixel, 3 GB decoded, more than a Pi has). Set here,
# before any module of this package imports cv2, to the reader's own limit (also checked
# on the header by ``vision.sources.load_image``): a made-up header of a format whose size
# ``claimed_size`` does not read (a 29-byte GIF claiming 30000 x 30000) is then refused
# by the decoder at once instead of filling memory. A smaller limit already set stays.
# 64 MP takes a 50 MP phone's photos (8160 x 6144); at 200 MP, a 570 kB PNG claiming
# 14000 x 14000 took 1.2 GB to be read, more than a 1 GB Pi has.
MAX_IMAGE_PIXELS = 64_000_000
try:
    _set = int(os.environ.get("OPENCV_IO_MAX_IMAGE_PIXELS", ""))
except ValueError:
    _set = 0
if not 0 < _set <= MAX_IMAGE_PIXELS:
    os.environ["OPENCV_IO_MAX_IMAGE_PIXELS"] = str(MAX_IMAGE_PIXELS)

from vision.types import DieReading, FrameReading, FrameStatus  # noqa: E402

__all__ = ["MAX_IMAGE_PIXELS", "DieReading", "FrameReading", "FrameStatus"]
