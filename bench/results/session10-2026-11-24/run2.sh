#!/usr/bin/env bash
# Device run 2 (session 10): CUDA prototype p11 (proto-pipeline.cu here): the peer's g_fast tile loaded
# with cp.async, each block walking T tiles down a column with two shared buffers.
set -u
source bench/results/session10-2026-11-24/common.sh gpu51
timeout 300 /tmp/bin/p11 > /tmp/r/p11.txt 2>&1; echo "p11 exit $?"; cat /tmp/r/p11.txt; el
