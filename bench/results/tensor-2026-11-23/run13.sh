#!/usr/bin/env bash
# Device run 13: first run with the five tensor kernels in the fatbin (issue 12 goal 3): `host info`
# and a one-image run (2048x2048 RGB 8-bit PNG, default options), JIT and autotune caches empty.
set -u
exec > >(tee $OUT/log) 2>&1
mkdir -p /tmp/bin; gunzip -c target/gpu12/host.gz > /tmp/bin/host; chmod +x /tmp/bin/host
cd /tmp
python3 -c "import numpy as np, cv2; cv2.imwrite('/tmp/photo.png', np.random.default_rng(2).integers(0,256,(2048,2048,3),dtype=np.uint8))"
rm -f /tmp/out-*.png
for i in 1 2; do
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="host info (empty caches): %R s wall"; time /tmp/bin/host info > /tmp/info.txt 2>&1; grep -iE "fatbin|kernels" /tmp/info.txt | head -2
  rm -rf ~/.nv/ComputeCache /tmp/cc
  TIMEFORMAT="one image (empty caches): %R s wall"; time CONV_CACHE_DIR=/tmp/cc /tmp/bin/host -i /tmp/photo.png -o /tmp/out-$i.png > /tmp/one.txt 2>&1; tail -2 /tmp/one.txt
done
