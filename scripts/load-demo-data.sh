#!/usr/bin/env bash
# Loads the demo data of the local stack through the admin APIs: the quotas of org 'demo' and the fleet of zone
# US-EAST-04A. Every call is idempotent (PUT of a quota limit, SET_SIZE of a fleet), so it can run again on a stack
# that already has them. './stack up' runs it once every service is ready; docker-compose.yml runs it in its one-shot
# 'demo-data' container once every service is healthy.
#
# Environment (all optional):
#   QUOTA_URL      base URL of the quota-service     (default http://localhost:8081)
#   CAPACITY_URL   base URL of the capacity-service  (default http://localhost:8082)
#   ADMIN_TOKEN    operator bearer token             (default admin-token, profile "local" of service-kit)
#   DEMO_ORG       org whose quotas are set          (default demo)
#   ZONE           zone of the quotas and the fleet  (default US-EAST-04A)
# Exit status: the number of calls that failed (0 when all succeeded); each failure is reported on stderr.
set -euo pipefail

QUOTA_URL="${QUOTA_URL:-http://localhost:8081}"
CAPACITY_URL="${CAPACITY_URL:-http://localhost:8082}"
ADMIN_TOKEN="${ADMIN_TOKEN:-admin-token}"
DEMO_ORG="${DEMO_ORG:-demo}"
ZONE="${ZONE:-US-EAST-04A}"

# One idempotent admin call; retries while the service is unreachable or still restoring its state (503/504),
# reports the answer if it fails.
admin_call() {
  local method="$1" url="$2" body="$3" attempt output status code
  for attempt in 1 2 3 4 5 6; do
    status=0
    output="$(curl -sS --max-time 15 -w '\n%{http_code}' -X "$method" \
      -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
      --data "$body" "$url" 2>&1)" || status=$?
    code="${output##*$'\n'}"
    output="${output%$'\n'*}"
    if ((status == 0)); then
      case "$code" in
        2??) return 0 ;;
        503 | 504) sleep "$attempt" ;; # starting, or its stores are being restored
        *) break ;;
      esac
    else
      case "$status" in
        7 | 28 | 52 | 56) sleep "$attempt" ;; # connection refused, timeout, empty reply, connection reset
        *) break ;;
      esac
    fi
  done
  echo "demo data: $method $url $body failed (curl exit $status, HTTP $code): $output" >&2
  return 1
}

load_demo_data() {
  local failures=0 entry type count
  echo "loading demo data: quotas of org '$DEMO_ORG' and the fleet of zone $ZONE"
  for entry in gd-8xa100-i128=16 gd-8xh100ib-i128=8 gd-8xl40s-i128=8 cd-gp-a192-genoa=32; do
    type="${entry%=*}"
    count="${entry#*=}"
    admin_call PUT "${QUOTA_URL%/}/admin/quotas/$DEMO_ORG/$ZONE/$type" "{\"maxNodes\": $count}" ||
      failures=$((failures + 1))
  done
  for entry in gd-8xa100-i128=24 gd-8xh100ib-i128=8 gd-8xl40s-i128=16 cd-gp-a192-genoa=48; do
    type="${entry%=*}"
    count="${entry#*=}"
    admin_call PUT "${CAPACITY_URL%/}/admin/fleet/$ZONE/$type" "{\"machines\": $count}" ||
      failures=$((failures + 1))
  done
  return "$failures"
}

status=0
load_demo_data || status=$?
exit "$status"
