"""Times the libraries a user would reach for instead (cuDNN via PyTorch conv2d, CuPy's
ndimage.correlate) on the same GPU, same sizes and filters as `host bench`, kernel time only:
CUDA events, median of 20 runs after warm-up. f32, one channel, zero border.

Usage on the GPU machine: python3 bench/peers.py [SIZE] > peers.csv
"""
import sys

import cupy
import cupyx.scipy.ndimage as ndi
import torch


def median_ms(fn, runs=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    torch.backends.cudnn.benchmark = True
    image = torch.rand(1, 1, n, n, device="cuda")
    print("library,size,k,median_ms")
    for k in (3, 5, 7, 9, 17, 31):
        weight = torch.rand(1, 1, k, k, device="cuda")
        with torch.no_grad():
            ms = median_ms(lambda: torch.nn.functional.conv2d(image, weight, padding=k // 2))
        print(f"pytorch-cudnn,{n}x{n},{k},{ms:.4f}")
        img = cupy.asarray(image[0, 0])
        w = cupy.asarray(weight[0, 0])
        out = cupy.empty_like(img)
        ms = median_ms(lambda: ndi.correlate(img, w, output=out, mode="constant", cval=0.0))
        print(f"cupy-ndimage,{n}x{n},{k},{ms:.4f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
