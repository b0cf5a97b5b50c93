#!/bin/sh
# A private network for DNS-SD tests: run inside `unshare -n -m -p -f --mount-proc`, it
# brings up loopback with multicast, starts a D-Bus system bus of its own and an
# avahi-daemon on it (state in a tmpfs /run: the host's are never touched), publishes the
# services given, then execs the command (labeld) with DBUS_SYSTEM_BUS_ADDRESS pointing at
# that bus. Every wait is bounded; when the command ends, the namespace and all in it go.
#
#   dnssd-env.sh DIR "NAME|TYPE|PORT|TXT|TXT..." ... -- COMMAND...
set -eu
dir=$1
shift
mount -t tmpfs tmpfs /run
ip link set lo up
ip link set lo multicast on
cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
CONF
cat >"$dir/avahi.conf" <<CONF
[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
enable-dbus=yes
[publish]
publish-addresses=yes
CONF
dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile >"$dir/dbus.log" 2>&1 &
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/bus.sock"
for i in $(seq 1 100); do [ -S "$dir/bus.sock" ] && break; sleep 0.05; done
avahi-daemon -f "$dir/avahi.conf" --no-drop-root --no-chroot --no-rlimits >"$dir/avahi.log" 2>&1 &
for i in $(seq 1 200); do grep -q "Server startup complete" "$dir/avahi.log" && break; sleep 0.05; done
n=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  n=$((n + 1))
  (
    IFS='|'
    set -f
    # shellcheck disable=SC2086
    set -- $1
    name=$1 type=$2 port=$3
    shift 3
    exec avahi-publish -s "$name" "$type" "$port" "$@" >"$dir/publish-$n.log" 2>&1
  ) &
  shift
done
[ "${1:-}" = "--" ] && shift
for i in $(seq 1 200); do
  [ "$(cat "$dir"/publish-*.log 2>/dev/null | grep -c "Established")" -ge "$n" ] && break
  sleep 0.05
done
exec "$@"
