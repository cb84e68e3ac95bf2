#!/usr/bin/env bash
# Device run 8 (sixth session, binary of run 7): `host verify` of `fast` and `fast-4x2` on the
# standard ladder, one process per sample type.
set -u
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r; gunzip -c target/gpu16/host.gz > /tmp/bin/host; chmod +x /tmp/bin/host
cd /tmp
PIDS=""
for d in f32 u8 u16; do
  timeout 540 /tmp/bin/host verify --variants fast,fast-4x2 --dtypes $d > /tmp/r/verify-fast-$d.log 2>&1 &
  PIDS="$PIDS $!"
done
for p in $PIDS; do wait $p; echo "verify exit $?"; done
for d in f32 u8 u16; do echo "$d: $(tail -1 /tmp/r/verify-fast-$d.log)"; done; el
tar czf $OUT/results.tgz -C /tmp/r verify-fast-f32.log verify-fast-u8.log verify-fast-u16.log
