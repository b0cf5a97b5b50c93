#!/bin/sh
# The same label through Debian's LPrint, for `make bench` (section "peers"): starts a
# private `lprint server` in its own mount, network and pid namespaces (its root socket
# /run/lprint.sock and its state file stay its own), adds a printer with DRIVER writing
# to a directory, submits PNG COUNT times (one `lprint submit` each, as a client would)
# and prints the milliseconds per label from the first submit to the last output file.
#
#   scripts/lprint-bench.sh DRIVER PNG COUNT      (as root; bounded by `timeout 120`)
set -eu
driver=$1 png=$2 count=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/out"
cat >"$dir/run.sh" <<SCRIPT
export HOME=$dir
mount -t tmpfs tmpfs /run && ip link set lo up 2>/dev/null
lprint server -o spool-directory=$dir/spool -o server-port=8632 -o log-level=error >$dir/server.log 2>&1 &
for i in \$(seq 1 100); do [ -S /run/lprint.sock ] && break; sleep 0.1; done
lprint add -d peer -v file://$dir/out -m $driver >/dev/null
start=\$(date +%s%N)
for i in \$(seq 1 $count); do lprint submit -d peer -o print-scaling=none -t job\$i $png >/dev/null; done
for i in \$(seq 1 6000); do [ \$(ls $dir/out | wc -l) -ge $count ] && break; sleep 0.005; done
end=\$(date +%s%N)
[ \$(ls $dir/out | wc -l) -ge $count ] || { echo "LPrint wrote \$(ls $dir/out | wc -l) of $count" >&2; exit 1; }
echo \$(( (end - start) / $count / 1000 ))
SCRIPT
timeout 120 unshare -m -n -p -f --mount-proc sh "$dir/run.sh"
