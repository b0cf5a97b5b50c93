#!/bin/sh
# LPrint as an IPP server for `make bench` (section "ipp"): a private `lprint server` on
# PORT (every address: LPrint 1.1 has no option to listen on loopback only) in its own mount and pid namespaces (its root socket /run/lprint.sock and
# its state stay its own; the network is the host's, so labeld-bench's client reaches both
# servers the same way), with one printer `peer` of DRIVER writing each job to a file in
# DIR/out. Prints "ready" once the printer is added, then runs until killed (killing it
# ends LPrint: --kill-child); bounded by `timeout 900`.
#
#   scripts/lprint-ipp-server.sh PORT DRIVER DIR      (as root)
set -eu
port=$1 driver=$2 dir=$3
mkdir -p "$dir/out" "$dir/spool"
cat >"$dir/run.sh" <<SCRIPT
export HOME=$dir
mount -t tmpfs tmpfs /run
lprint server -o spool-directory=$dir/spool -o server-port=$port -o log-level=warn >$dir/server.log 2>&1 &
for i in \$(seq 1 100); do [ -S /run/lprint.sock ] && break; sleep 0.1; done
lprint add -d peer -v file://$dir/out -m $driver >/dev/null
echo ready
wait
SCRIPT
exec timeout 900 unshare -m -p -f --mount-proc --kill-child sh "$dir/run.sh"
