"""Makes test inputs for the file-processing checks on a machine with NumPy, Pillow and tifffile:
a folder of N mixed images (PNG 8/16-bit gray/RGB/RGBA, JPEG, BMP, PGM/PPM, float TIFF, sizes
17..1500 px) and, optionally, one large 8-bit PGM.

Usage: python3 bench/make_images.py FOLDER [N] [BIG_SIDE BIG_PATH]
"""
import os
import sys

import numpy as np
import tifffile
from PIL import Image


def main():
    folder, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(1)
    kinds = ["png8g", "png8rgb", "png8rgba", "png16g", "jpg", "bmp", "pgm", "ppm", "tif32"]
    for i in range(n):
        kind = kinds[i % len(kinds)]
        w, h = (int(v) for v in rng.integers(17, 1500, size=2))
        path = os.path.join(folder, f"img{i:03d}")
        if kind == "png16g":
            Image.fromarray(rng.integers(0, 65536, (h, w), dtype=np.uint16)).save(path + ".png")
        elif kind == "tif32":
            tifffile.imwrite(path + ".tif", rng.random((h, w), dtype=np.float32))
        else:
            channels = {"png8g": 1, "pgm": 1, "png8rgba": 4}.get(kind, 3)
            shape = (h, w) if channels == 1 else (h, w, channels)
            ext = {"png8g": "png", "png8rgb": "png", "png8rgba": "png"}.get(kind, kind)
            Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8)).save(f"{path}.{ext}")
    if len(sys.argv) > 4:
        side, big = int(sys.argv[3]), sys.argv[4]
        with open(big, "wb") as f:
            f.write(f"P5\n{side} {side}\n255\n".encode())
            for _ in range(side // 1000):
                f.write(rng.integers(0, 256, (1000, side), dtype=np.uint8).tobytes())


if __name__ == "__main__":
    main()
