#!/usr/bin/env bash
# Scrapes the running local stack ('./stack up' or 'up --cluster') with a local Prometheus, as the Kubernetes scrape
# would label it (namespace "nodepool", pod "<service>-<ordinal>"), then runs every query of the Grafana dashboard
# (deploy/grafana/nodepool.json) and prints how many series each returns, with a sample. Needs the prometheus binary
# (Debian: apt-get install prometheus) and python3. Usage: scripts/dashboard-queries.sh [seconds to scrape first, 60]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WAIT="${1:-60}"
PROM="$(command -v prometheus)" || { echo "no prometheus binary on PATH (Debian: apt-get install prometheus)" >&2; exit 2; }
WORK="$ROOT/.stack/prometheus"
mkdir -p "$WORK"
mode="$(cat "$ROOT/.stack/mode" 2>/dev/null || echo single)"
instances=1
[[ "$mode" == cluster ]] && instances=2
{
  echo "global: {scrape_interval: 5s, evaluation_interval: 5s}"
  echo "scrape_configs:"
  echo "  - job_name: nodepool"
  echo "    metrics_path: /q/metrics"
  echo "    static_configs:"
  port=8080
  for service in nodepool-api-service quota-service capacity-service provisioner-service preemption-service; do
    for ((i = 0; i < instances; i++)); do
      echo "      - targets: ['localhost:$((port + 10 * i))']"
      echo "        labels: {namespace: nodepool, pod: $service-$i}"
    done
    port=$((port + 1))
  done
} >"$WORK/prometheus.yml"
"$PROM" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" --web.listen-address=127.0.0.1:9090 \
  >"$WORK/prometheus.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
echo "prometheus (pid $pid) scrapes the $mode stack; querying the dashboard in ${WAIT}s"
sleep "$WAIT"
python3 - "$ROOT/deploy/grafana/nodepool.json" <<'PY'
import json, sys, urllib.parse, urllib.request
board = json.load(open(sys.argv[1]))
for panel in board["panels"]:
    for target in panel.get("targets", []):
        expr = target["expr"].replace("$namespace", "nodepool")
        url = "http://127.0.0.1:9090/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        answer = json.load(urllib.request.urlopen(url))
        series = answer["data"]["result"] if answer["status"] == "success" else []
        sample = ", ".join(
            "{" + ",".join(f"{k}={v}" for k, v in s["metric"].items()) + "}=" + s["value"][1] for s in series[:3])
        print(f"{panel['title']}: {len(series)} series{'; ' + sample if sample else ''}")
PY
