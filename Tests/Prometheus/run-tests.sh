#!/bin/sh
# Fleet monitoring (contrib/prometheus), checked and run with Debian's prometheus and
# prometheus-alertmanager (`make deps`):
#
#   Tests/Prometheus/run-tests.sh LABELD_BINARY
#
# 1. promtool check rules and promtool test rules (labeld.rules.test.yml: every rule
#    firing and not firing, on series shaped as labeld writes them);
# 2. amtool check-config on alertmanager.yml, promtool check config on prometheus.yml
#    (a copy beside empty token and certificate files: it checks that they exist);
# 3. a private labeld (LABELD_BINARY, its labelctl beside it) with a simulated printer
#    and its web endpoint with TLS on this machine's first non-loopback address, where
#    /metrics needs a token; a private Prometheus scraping it as prometheus.yml scrapes a
#    site (TLS with the site's certificate as ca_file, a viewer token as the bearer
#    credentials) and evaluating the shipped rules; a fault injected on the printer makes
#    LabeldPrinterFaulted pending, clearing it ends the alert.
#
# Every step is bounded by `timeout`; waits are bounded polls. Everything started and made
# here is stopped and removed on exit. Exits non-zero on any failure.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 LABELD_BINARY" >&2
    exit 64
fi
binary=$1
case $binary in /*) ;; *) binary=$(pwd)/$binary ;; esac
labelctl=$(dirname "$binary")/labelctl
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
contrib=$repo/contrib/prometheus
promcheck=$here/promcheck.py

# fd 3: the script's stderr, also where a polled command's stderr is caught.
exec 3>&2
step() { printf '== %s\n' "$*"; }
fail() {
    printf 'FAIL: %s\n' "$*" >&3
    exit 1
}

for tool in promtool prometheus amtool python3; do
    command -v "$tool" >/dev/null || fail "$tool is missing (make deps installs prometheus and prometheus-alertmanager)"
done
[ -x "$binary" ] || fail "$binary is not an executable labeld"
[ -x "$labelctl" ] || fail "no labelctl beside $binary"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/labeld-prometheus.XXXXXX")
labeld_pid=
prometheus_pid=
stop() {
    [ -n "$1" ] || return 0
    kill "$1" 2>/dev/null || true
    # `timeout` passes the TERM on, and ends what ignores it 5 s later.
    wait "$1" 2>/dev/null || true
}
cleanup() {
    status=$?
    trap - EXIT INT TERM
    stop "$prometheus_pid"
    stop "$labeld_pid"
    if [ "$status" -ne 0 ]; then
        for log in "$tmp/labeld.log" "$tmp/prometheus.log"; do
            [ -f "$log" ] && { echo "--- last lines of $(basename "$log")"; tail -n 30 "$log"; }
        done
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# poll SECONDS WHAT COMMAND...: runs COMMAND every half second until it succeeds, for at
# most SECONDS; fails naming WHAT (COMMAND's own complaint on stderr says what it found).
poll() {
    seconds=$1
    what=$2
    shift 2
    deadline=$(($(date +%s) + seconds))
    until "$@" 2>"$tmp/poll.err"; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            cat "$tmp/poll.err" >&2
            fail "$what: not within $seconds s"
        fi
        sleep 0.5
    done
}

free_port() {
    timeout 10 python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

step "promtool check rules"
timeout 60 promtool check rules "$contrib/labeld.rules.yml"

step "promtool test rules (every rule, on series shaped as labeld's /metrics)"
(cd "$contrib" && timeout 120 promtool test rules labeld.rules.test.yml)

step "amtool check-config alertmanager.yml"
timeout 60 amtool check-config "$contrib/alertmanager.yml"

step "promtool check config prometheus.yml (beside the files it names)"
mkdir -p "$tmp/config"
cp "$contrib/prometheus.yml" "$contrib/labeld.rules.yml" "$tmp/config/"
sed -n -e 's/^ *credentials_file: *//p' -e 's/^ *ca_file: *//p' "$contrib/prometheus.yml" | while read -r f; do
    mkdir -p "$tmp/config/$(dirname "$f")"
    : >"$tmp/config/$f"
done
timeout 60 promtool check config "$tmp/config/prometheus.yml"

# TLS on an address off loopback, where /metrics needs a token (on 127.0.0.0/8 it needs
# none: whoever reaches it is on the box).
address=$(timeout 10 ip -o -4 addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
if [ -z "$address" ]; then
    address=127.0.0.1
    echo "no non-loopback IPv4 address: labeld listens on 127.0.0.1 (TLS still; the token is then not required)"
fi
port=$(free_port)
step "labeld with sim:zebra and sim:ql, web endpoint https://$address:$port"
mkdir -p "$tmp/state"
timeout --foreground -k 5 900 "$binary" --no-config --no-cups --no-usb --socket "$tmp/labeld.sock" \
    --state-dir "$tmp/state" --simulate zebra=zpl,dpi=203,width=50.8,length=25.4 \
    --simulate ql=brother-ql --listen-http "$address:$port" --tls-self-signed \
    --log-level info 2>"$tmp/labeld.log" &
labeld_pid=$!
labeld_ready() {
    kill -0 "$labeld_pid" 2>/dev/null || fail "labeld exited"
    grep -q "web endpoint on" "$tmp/labeld.log" && [ -S "$tmp/labeld.sock" ]
}
poll 30 "labeld's web endpoint" labeld_ready
lctl() { timeout 30 "$labelctl" --socket "$tmp/labeld.sock" "$@"; }

step "a viewer token and the site's certificate for Prometheus"
mkdir -p "$tmp/prom/labeld"
lctl --json tokens create prometheus --role viewer | timeout 10 python3 "$promcheck" secret >"$tmp/secret"
secret=$(cat "$tmp/secret")
[ -n "$secret" ] || fail "no token secret"
printf '%s' "$secret" >"$tmp/prom/labeld/test.token"
cp "$tmp/state/tls/cert.pem" "$tmp/prom/labeld/test.pem"
if [ "$address" != 127.0.0.1 ]; then
    status=$(timeout 30 python3 "$promcheck" metrics "$address" "$port" "$tmp/prom/labeld/test.pem")
    [ "$status" = 401 ] || fail "/metrics without a token answered $status, not 401"
    echo "/metrics without a token: 401"
fi
status=$(timeout 30 python3 "$promcheck" metrics "$address" "$port" "$tmp/prom/labeld/test.pem" "$secret")
[ "$status" = 200 ] || fail "/metrics with the viewer token answered $status, not 200"
echo "/metrics with the viewer token: 200"

# As prometheus.yml scrapes a site, every second: the certificate as ca_file, its host
# name (labeld's self-signed certificate names `uname -n`) as server_name.
cp "$contrib/labeld.rules.yml" "$tmp/prom/"
cat >"$tmp/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - labeld.rules.yml
scrape_configs:
  - job_name: labeld-test
    scheme: https
    authorization:
      type: Bearer
      credentials_file: labeld/test.token
    tls_config:
      ca_file: labeld/test.pem
      server_name: $(uname -n)
    static_configs:
      - targets: ["$address:$port"]
        labels:
          job: labeld
          site: test
EOF
timeout 60 promtool check config "$tmp/prom/prometheus.yml" >/dev/null
pport=$(free_port)
prom=http://127.0.0.1:$pport
step "prometheus on $prom scraping labeld"
timeout --foreground -k 5 900 prometheus --config.file="$tmp/prom/prometheus.yml" \
    --storage.tsdb.path="$tmp/prom/data" --web.listen-address="127.0.0.1:$pport" \
    2>"$tmp/prometheus.log" &
prometheus_pid=$!
prometheus_ready() {
    kill -0 "$prometheus_pid" 2>/dev/null || fail "prometheus exited"
    timeout 10 python3 "$promcheck" ready "$prom"
}
poll 60 "prometheus ready" prometheus_ready
poll 60 "the labeld target up over TLS with the viewer token" \
    timeout 10 python3 "$promcheck" target-up "$prom" job=labeld site=test
echo "target job=labeld site=test: up"
poll 60 "sim:zebra scraped as up" \
    timeout 10 python3 "$promcheck" series "$prom" 'labeld_printer_up{job="labeld",site="test",printer="sim:zebra"} == 1'
timeout 10 python3 "$promcheck" alert "$prom" absent LabeldPrinterFaulted site=test \
    || fail "LabeldPrinterFaulted before any fault"

step "fault injected: sim:zebra mediaEmpty, a job waiting on it"
lctl simulate sim:zebra mediaEmpty
printf '^XA^FO20,20^A0N,30,30^FDwaiting^FS^XZ\n' >"$tmp/label.zpl"
lctl print sim:zebra --file "$tmp/label.zpl"
poll 60 "LabeldPrinterFaulted pending for sim:zebra" \
    timeout 10 python3 "$promcheck" alert "$prom" pending LabeldPrinterFaulted site=test printer=sim:zebra \
    instance="$address:$port" severity=warning
echo "LabeldPrinterFaulted{site=test,printer=sim:zebra}: pending (for: 10m)"
timeout 10 python3 "$promcheck" alert "$prom" absent LabeldPrinterFaulted printer=sim:ql \
    || fail "LabeldPrinterFaulted for sim:ql, which has no fault"
step "the series the other rules read, as Prometheus has them"
poll 30 "the job's age on sim:zebra" \
    timeout 10 python3 "$promcheck" series "$prom" 'labeld_printer_oldest_job_seconds{job="labeld",site="test",printer="sim:zebra"} >= 0'
timeout 10 python3 "$promcheck" series "$prom" 'labeld_printer_oldest_job_seconds{job="labeld",site="test",printer="sim:ql"} == 0' \
    || fail "sim:ql has no job, its oldest job's age must be 0"
timeout 10 python3 "$promcheck" series "$prom" 'labeld_clients_overflowed_total{job="labeld",site="test"} == 0' \
    || fail "labeld_clients_overflowed_total"

step "fault cleared: the alert ends"
lctl simulate sim:zebra clear
poll 60 "LabeldPrinterFaulted gone once the fault cleared" \
    timeout 10 python3 "$promcheck" alert "$prom" absent LabeldPrinterFaulted site=test
echo "PASS: contrib/prometheus checked, its rules unit-tested, and run against labeld"
