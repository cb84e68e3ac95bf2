# Device-run preamble shared by session 11's runs (sourced): log to $OUT/log, unpack the
# stripped, gzipped binaries of target/$1 into /tmp/bin, and `el` prints the elapsed time.
exec > >(tee $OUT/log) 2>&1
T0=$(date +%s)
el() { echo "[t=$(( $(date +%s) - T0 )) s]"; }
mkdir -p /tmp/bin /tmp/r
for f in target/$1/*.gz; do gunzip -c $f > /tmp/bin/$(basename $f .gz); done
chmod +x /tmp/bin/*
H=/tmp/bin/host-x
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
