#!/usr/bin/env bash
# The secured broker of docker-compose.yml: what ./stack up does for its broker (make_pki,
# make_kafka_principals, write_kcat_configs) and local-kafka's AccessSetup does once the broker runs, for the
# apache/kafka image. docker-compose.yml runs it, mounted read-only, in two one-shot containers of that image:
#
#   compose-kafka-access.sh pki      (container kafka-pki, as root, before the broker starts) makes once, into the
#       volume kafka-access ($SECRETS_DIR): a local CA (ca.p12, ca.crt); the broker's key store kafka-broker.p12
#       (CN=kafka-broker, DNS kafka and localhost, server and client authentication), kept while valid; a random
#       password per principal (principals.properties, kept until 'docker compose down -v'); and on every run the
#       files that follow from them: broker-client.properties (a client of the BROKER listener with the broker's own
#       certificate, a super user), <service>.jaas (the sasl.jaas.config of each service), and for the host, in
#       ./.compose/kafka-access/ ($HOST_DIR), ca.crt and kcat-<name>.conf per principal like ./stack's
#       .stack/kcat-<name>.conf (0600, owned by whoever owns this script in the checkout).
#   compose-kafka-access.sh access [--dry-run]   (container kafka-access, once the broker is healthy) makes the
#       principals real as an operator would: a SCRAM-SHA-512 credential each, their ACLs, and each org's inbound
#       topics <topic>.<org>; as the broker itself over the mutual-TLS BROKER listener. Idempotent (credentials are
#       upserted, ACLs added, topics created if missing), so it runs again harmlessly on each 'docker compose up'.
#       --dry-run prints the Kafka tool calls instead of running them.
#
# The ACLs below are local-kafka's KafkaAccess.forPrincipal written out: KafkaAccess (derived from the topic registry,
# events-schema's Topics and TenantTopics) is the source of truth and docs/security.md ("Kafka principals and ACLs")
# shows them as a table. ComposeKafkaAccessTest compares this script's dry run with it, so a topic added to the
# registry, or a change of its owner, fails the build until it is added here too.
set -euo pipefail

SECRETS_DIR="${KAFKA_ACCESS_SECRETS_DIR:-/etc/kafka/secrets}"
HOST_DIR="${KAFKA_ACCESS_HOST_DIR:-/compose/kafka-access}"
# Where a kcat on the host finds the CA: relative, so run kcat from the checkout's root (as for .stack/kcat-*.conf).
HOST_CA_LOCATION=.compose/kafka-access/ca.crt
HOST_BOOTSTRAP=localhost:9092
KAFKA_BIN="${KAFKA_BIN:-/opt/kafka/bin}"
# The broker's own listener: mutual TLS, the broker's certificate is a super user (super.users in docker-compose.yml).
BROKER_BOOTSTRAP="${KAFKA_ACCESS_BOOTSTRAP:-kafka:9094}"
# The key stores' password, as ./stack's TLS_PASSWORD: the broker's environment in docker-compose.yml says it too.
TLS_PASSWORD=nodepool-local
CA_DAYS=3650
LEAF_DAYS=825
SCRAM_ITERATIONS=4096
# As AccessSetup.ORG_TOPIC_PARTITIONS, and the shared topics.
ORG_TOPIC_PARTITIONS=3
# Kafka tool JVMs at a time (each about 100 MB).
ACCESS_PARALLELISM=4

SERVICES=(nodepool-api-service quota-service capacity-service provisioner-service preemption-service)
# <kcat config name> <principal>, as ./stack's KAFKA_PRINCIPALS.
KCAT_PRINCIPALS=(
  'demo tenant-demo'
  'other tenant-other'
  'operator nodepool-operator'
  'monitoring monitoring'
  'admin kafka-admin'
)
OPERATOR=nodepool-operator
MONITORING=monitoring
ADMIN=kafka-admin

# KafkaAccess.registryTopics(): Topics.all() and each service's own dead-letter topic <service>-dlq.
REGISTRY_TOPICS=(
  nodepool-requested nodepool-requested-dlq nodepool-request-decided nodepool-accepted quota-limit-set
  quota-demanded capacity-demanded org-pools-counted instance-type-catalogued fleet-change-requested capacity-checked
  spot-reclaim-requested node-activity-reported node-activity-reported-dlq nodepool-nodes-changed
  spot-preemption-progressed nodepool-event-recorded nodepool-events nodepool-status nodepool-configuration-requested
  nodepool-configuration-requested-dlq node-release-published node-alert-raised node-alert-raised-dlq
  node-deletion-requested node-deletion-requested-dlq workload-pending workload-pending-dlq workload-status
  node-change-requested node-change-requested-dlq fleet-availability pool-offered pool-demand-planned audit-events
  nodepool-api-service-dlq quota-service-dlq capacity-service-dlq provisioner-service-dlq preemption-service-dlq
)
# TenantTopics.INBOUND with each one's configuration (TenantTopics.brokerConfig): a week, as their shared topics,
# stamped by the broker, and bounded in bytes per partition in small segments.
INBOUND_TOPICS=(nodepool-requested node-activity-reported nodepool-configuration-requested node-deletion-requested
  workload-pending)
INBOUND_RETENTION_MS=604800000
INBOUND_RETENTION_BYTES=16777216
INBOUND_SEGMENT_BYTES=4194304
# KafkaAccess.TENANT_QUOTAS: each org principal's client quotas.
TENANT_QUOTAS=producer_byte_rate=1048576,consumer_byte_rate=2097152,request_percentage=25
# KafkaAccess.writers: the registry topics each principal writes (its entries' owners). Platform teams write only their
# org topics instead, below.
declare -A WRITES=(
  [nodepool-api-service]="nodepool-requested nodepool-requested-dlq nodepool-request-decided nodepool-accepted
    quota-demanded org-pools-counted node-activity-reported nodepool-event-recorded nodepool-events nodepool-status
    nodepool-configuration-requested node-deletion-requested node-change-requested workload-pending audit-events
    nodepool-api-service-dlq"
  [quota-service]="quota-limit-set capacity-demanded nodepool-event-recorded audit-events quota-service-dlq"
  [capacity-service]="instance-type-catalogued fleet-change-requested capacity-checked spot-reclaim-requested
    nodepool-event-recorded fleet-availability audit-events capacity-service-dlq"
  [provisioner-service]="nodepool-requested node-activity-reported-dlq nodepool-nodes-changed nodepool-event-recorded
    nodepool-configuration-requested-dlq node-release-published node-alert-raised node-alert-raised-dlq
    node-deletion-requested-dlq node-change-requested-dlq workload-pending-dlq workload-status pool-offered pool-demand-planned audit-events
    provisioner-service-dlq"
  [preemption-service]="spot-preemption-progressed nodepool-event-recorded audit-events preemption-service-dlq"
  [nodepool-operator]="quota-limit-set"
  [monitoring]="node-alert-raised"
)

log() {
  printf '%s: %s\n' "${COMMAND:-compose-kafka-access}" "$*"
}

die() {
  printf '%s: %s\n' "${COMMAND:-compose-kafka-access}" "$*" >&2
  exit 1
}

every_principal() {
  local entry
  printf '%s\n' "${SERVICES[@]}"
  for entry in "${KCAT_PRINCIPALS[@]}"; do
    printf '%s\n' "${entry#* }"
  done
}

# The password of principal $1.
password_of() {
  sed -n "s/^$1=//p" "$SECRETS_DIR/principals.properties"
}

# ------------------------------------------------------------------------------------------------------------- pki

# Whether $1 (an <name>.expires file: the epoch second its certificate expires) says at least another day is left.
still_valid() {
  [[ -s "$1" ]] && (($(cat "$1") > $(date +%s) + 86400))
}

make_ca() {
  log "making the local CA (valid $CA_DAYS days)"
  rm -f "$SECRETS_DIR/ca.p12" "$SECRETS_DIR/ca.crt" "$SECRETS_DIR/kafka-broker.p12"
  keytool -genkeypair -alias ca -keyalg RSA -keysize 2048 -sigalg SHA256withRSA -validity "$CA_DAYS" \
    -dname "CN=nodepool compose CA, O=nodepool" -ext BC:c=ca:true -ext KU:c=keyCertSign,cRLSign \
    -keystore "$SECRETS_DIR/ca.p12" -storetype PKCS12 -storepass "$TLS_PASSWORD" >/dev/null 2>&1 ||
    die "keytool could not make the local CA"
  keytool -exportcert -rfc -alias ca -keystore "$SECRETS_DIR/ca.p12" -storepass "$TLS_PASSWORD" \
    -file "$SECRETS_DIR/ca.crt" >/dev/null 2>&1 || die "keytool could not export the CA certificate"
  echo $(($(date +%s) + CA_DAYS * 86400)) >"$SECRETS_DIR/ca.expires"
}

# kafka-broker.p12: a key pair, its certificate signed by the CA (CN=kafka-broker for super.users; DNS kafka for the
# containers, localhost for the host and the controller), and the CA's certificate.
make_broker_certificate() {
  log "issuing the broker's certificate (CN=kafka-broker, DNS kafka and localhost, valid $LEAF_DAYS days)"
  local store="$SECRETS_DIR/kafka-broker.p12" work
  work="$(mktemp -d)"
  rm -f "$store"
  keytool -genkeypair -alias kafka-broker -keyalg RSA -keysize 2048 -sigalg SHA256withRSA -validity "$LEAF_DAYS" \
    -dname "CN=kafka-broker" -keystore "$store" -storetype PKCS12 -storepass "$TLS_PASSWORD" >/dev/null 2>&1 ||
    die "keytool could not make the broker's key"
  keytool -certreq -alias kafka-broker -keystore "$store" -storepass "$TLS_PASSWORD" -file "$work/broker.csr" \
    >/dev/null 2>&1 || die "keytool could not make the broker's certificate request"
  keytool -gencert -rfc -alias ca -keystore "$SECRETS_DIR/ca.p12" -storepass "$TLS_PASSWORD" -sigalg SHA256withRSA \
    -validity "$LEAF_DAYS" -infile "$work/broker.csr" -outfile "$work/broker.crt" \
    -ext BC:c=ca:false -ext KU:c=digitalSignature,keyEncipherment -ext EKU=serverAuth,clientAuth \
    -ext SAN=dns:kafka,dns:localhost,ip:127.0.0.1 >/dev/null 2>&1 ||
    die "keytool could not sign the broker's certificate"
  keytool -importcert -noprompt -alias ca -file "$SECRETS_DIR/ca.crt" -keystore "$store" -storepass "$TLS_PASSWORD" \
    >/dev/null 2>&1 || die "keytool could not add the CA to the broker's key store"
  keytool -importcert -noprompt -alias kafka-broker -file "$work/broker.crt" -keystore "$store" \
    -storepass "$TLS_PASSWORD" >/dev/null 2>&1 || die "keytool could not add the broker's certificate to its key store"
  rm -rf "$work"
  echo $(($(date +%s) + LEAF_DAYS * 86400)) >"$SECRETS_DIR/kafka-broker.expires"
}

pki() {
  command -v keytool >/dev/null 2>&1 || die "keytool is missing (this runs in the apache/kafka image, a JRE)"
  umask 077
  mkdir -p "$SECRETS_DIR" "$HOST_DIR"
  local principal entry name file kafka_user="${KAFKA_ACCESS_OWNER:-appuser}" host_owner
  id "$kafka_user" >/dev/null 2>&1 || die "user $kafka_user (the broker's, in the apache/kafka image) is missing"

  if ! still_valid "$SECRETS_DIR/ca.expires" || [[ ! -s "$SECRETS_DIR/ca.p12" || ! -s "$SECRETS_DIR/ca.crt" ]]; then
    make_ca
  fi
  if ! still_valid "$SECRETS_DIR/kafka-broker.expires" || [[ ! -s "$SECRETS_DIR/kafka-broker.p12" ]]; then
    make_broker_certificate
  fi

  # A random password per principal, made once (48 hex digits, as ./stack's 'openssl rand -hex 24').
  touch "$SECRETS_DIR/principals.properties"
  while read -r principal; do
    grep -q "^$principal=" "$SECRETS_DIR/principals.properties" ||
      printf '%s=%s\n' "$principal" "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" \
        >>"$SECRETS_DIR/principals.properties"
  done < <(every_principal)

  # The broker's own client (a super user): the access container and the broker's healthcheck use it.
  printf '%s\n' "security.protocol=SSL" "ssl.keystore.type=PKCS12" \
    "ssl.keystore.location=$SECRETS_DIR/kafka-broker.p12" "ssl.keystore.password=$TLS_PASSWORD" \
    "ssl.key.password=$TLS_PASSWORD" "ssl.truststore.type=PEM" "ssl.truststore.location=$SECRETS_DIR/ca.crt" \
    >"$SECRETS_DIR/broker-client.properties"

  # Each service's login, read by its entrypoint into KAFKA_SASL_JAAS_CONFIG (docker-compose.yml, x-service).
  for principal in "${SERVICES[@]}"; do
    printf 'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";\n' \
      "$principal" "$(password_of "$principal")" >"$SECRETS_DIR/$principal.jaas"
  done

  # Only the broker's user reads the keys and passwords; the services (another user, in another image) read the CA
  # and their logins: the volume is mounted only in this project's containers.
  chown "$kafka_user" "$SECRETS_DIR" "$SECRETS_DIR"/kafka-broker.* "$SECRETS_DIR/principals.properties" \
    "$SECRETS_DIR/broker-client.properties"
  chmod 755 "$SECRETS_DIR"
  chmod 600 "$SECRETS_DIR"/*.p12 "$SECRETS_DIR/principals.properties" "$SECRETS_DIR/broker-client.properties"
  chmod 644 "$SECRETS_DIR/ca.crt" "$SECRETS_DIR"/*.jaas "$SECRETS_DIR"/*.expires

  # For kcat on the host: the CA and a configuration per principal, as ./stack's write_kcat_configs.
  cp "$SECRETS_DIR/ca.crt" "$HOST_DIR/ca.crt"
  for entry in "${KCAT_PRINCIPALS[@]}"; do
    read -r name principal <<<"$entry"
    file="$HOST_DIR/kcat-$name.conf"
    printf '%s\n' "bootstrap.servers=$HOST_BOOTSTRAP" "security.protocol=SASL_SSL" "sasl.mechanisms=SCRAM-SHA-512" \
      "sasl.username=$principal" "sasl.password=$(password_of "$principal")" "ssl.ca.location=$HOST_CA_LOCATION" \
      >"$file"
  done
  chmod 700 "$HOST_DIR"
  chmod 600 "$HOST_DIR"/*
  # Owned by the owner of the checkout (of this script), not root, so they can be read and deleted without sudo; where
  # the bind mount maps owners itself (Docker Desktop) this may fail harmlessly.
  host_owner="$(stat -c '%u:%g' "${BASH_SOURCE[0]}" 2>/dev/null || true)"
  if [[ -n "$host_owner" ]]; then
    chown "$host_owner" "$(dirname "$HOST_DIR")" "$HOST_DIR" "$HOST_DIR"/* 2>/dev/null || true
  fi
  log "ready: the broker's key store, $(every_principal | wc -l) principals; for the host .compose/kafka-access/" \
    "(ca.crt, kcat-{demo,other,operator,monitoring,admin}.conf)"
}

# ---------------------------------------------------------------------------------------------------------- access

DRY_RUN=false

# Runs Kafka tool $1 as the broker itself (a super user) with the arguments that follow; retries twice.
kafka_tool() {
  local tool="$1" output attempt
  shift
  if $DRY_RUN; then
    printf '%s' "$tool"
    printf ' %q' "$@"
    printf '\n'
    return 0
  fi
  output="$(mktemp)"
  for attempt in 1 2 3; do
    if "$KAFKA_BIN/$tool" --bootstrap-server "$BROKER_BOOTSTRAP" \
      --command-config "$SECRETS_DIR/broker-client.properties" "$@" >"$output" 2>&1; then
      rm -f "$output"
      return 0
    fi
    sleep "$attempt"
  done
  log "failed: $tool $*" >&2
  cat "$output" >&2
  rm -f "$output"
  return 1
}

# allow <principal...> -- <operation...> -- <kafka-acls resource options...>: an ALLOW ACL for each principal, each
# operation and each resource (kafka-acls.sh adds every combination), from any host.
allow() {
  local principals=() operations=()
  while [[ "$1" != -- ]]; do principals+=(--allow-principal "User:$1"); shift; done
  shift
  while [[ "$1" != -- ]]; do operations+=(--operation "$1"); shift; done
  shift
  kafka_tool kafka-acls.sh --add "${principals[@]}" "${operations[@]}" "$@"
}

# --topic <t> for each topic named.
topic_options() {
  local topic
  for topic in "$@"; do printf -- '--topic\n%s\n' "$topic"; done
}

# What every service and the operator may do on every registry topic and on every org's inbound topics.
shared_acls() {
  local registry inbound
  mapfile -t registry < <(topic_options "${REGISTRY_TOPICS[@]}")
  mapfile -t inbound < <(topic_options "${INBOUND_TOPICS[@]/%/.}")
  # Services read one another's facts and create the topics they use at start-up; operators read every topic.
  allow "${SERVICES[@]}" "$OPERATOR" -- Read Describe DescribeConfigs -- \
    --resource-pattern-type literal "${registry[@]}"
  allow "${SERVICES[@]}" -- Create -- --resource-pattern-type literal "${registry[@]}"
  # Every org's inbound topics, <topic>.<org>.
  allow "${SERVICES[@]}" "$OPERATOR" -- Read Describe -- --resource-pattern-type prefixed "${inbound[@]}"
}

# The credential and the ACLs of one principal (and for an org, its inbound topics).
principal_access() {
  local principal="$1" org topic writes=()
  kafka_tool kafka-configs.sh --alter --entity-type users --entity-name "$principal" \
    --add-config "SCRAM-SHA-512=[iterations=$SCRAM_ITERATIONS,password=$(password_of "$principal")]"
  if [[ -n "${WRITES[$principal]:-}" ]]; then
    # shellcheck disable=SC2086 # a list of topic names
    mapfile -t writes < <(topic_options ${WRITES[$principal]})
    allow "$principal" -- Write Describe -- --resource-pattern-type literal "${writes[@]}"
  fi
  case "$principal" in
    "$ADMIN" | "$MONITORING") ;; # a super user; monitoring only writes its topic
    "$OPERATOR")
      # kcat's and kafka-console-consumer's groups, for reading dead letters at a committed position.
      allow "$principal" -- Read -- --resource-pattern-type prefixed --group "$OPERATOR-"
      ;;
    tenant-*)
      org="${principal#tenant-}"
      for topic in "${INBOUND_TOPICS[@]}"; do
        kafka_tool kafka-topics.sh --create --if-not-exists --topic "$topic.$org" --partitions "$ORG_TOPIC_PARTITIONS" \
          --replication-factor 1 --config cleanup.policy=delete --config retention.ms="$INBOUND_RETENTION_MS"
        # Set again on a topic that existed before these bounds (as AccessSetup's alignConfigs).
        kafka_tool kafka-configs.sh --alter --entity-type topics --entity-name "$topic.$org" --add-config \
          "message.timestamp.type=LogAppendTime,retention.bytes=$INBOUND_RETENTION_BYTES,segment.bytes=$INBOUND_SEGMENT_BYTES"
      done
      kafka_tool kafka-configs.sh --alter --entity-type users --entity-name "$principal" --add-config "$TENANT_QUOTAS"
      # Its own topics only; reading one back lets a team check what it sent.
      mapfile -t writes < <(topic_options "${INBOUND_TOPICS[@]/%/.$org}")
      allow "$principal" -- Write Describe Read -- --resource-pattern-type literal "${writes[@]}"
      ;;
    *)
      # A service: Kafka Streams' internal topics, consumer group and transactional ids all start with its name.
      allow "$principal" -- All -- --resource-pattern-type prefixed --topic "$principal-"
      allow "$principal" -- Read Describe -- --resource-pattern-type literal --group "$principal"
      allow "$principal" -- Write Describe -- --resource-pattern-type prefixed --transactional-id "$principal-"
      ;;
  esac
}

access_job() {
  if [[ "$1" == shared ]]; then shared_acls; else principal_access "$1"; fi
}

access() {
  [[ "${1:-}" == --dry-run ]] && DRY_RUN=true
  [[ -s "$SECRETS_DIR/principals.properties" ]] ||
    die "$SECRETS_DIR/principals.properties is missing (kafka-pki makes it)"
  export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx96m}"
  export KAFKA_JVM_PERFORMANCE_OPTS="${KAFKA_JVM_PERFORMANCE_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
  local job jobs running=0 failed=0
  mapfile -t jobs < <(echo shared; every_principal)
  log "setting up the principals, their ACLs and the org topics on $BROKER_BOOTSTRAP"
  # One JVM per Kafka tool call: $ACCESS_PARALLELISM jobs (the shared ACLs, each principal's calls) at a time.
  for job in "${jobs[@]}"; do
    if $DRY_RUN; then
      access_job "$job"
      continue
    fi
    if ((running >= ACCESS_PARALLELISM)); then
      wait -n || failed=$((failed + 1))
      running=$((running - 1))
    fi
    access_job "$job" &
    running=$((running + 1))
  done
  while ((running > 0)); do
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  done
  ((failed == 0)) || die "$failed of ${#jobs[@]} steps failed (their output is above)"
  if $DRY_RUN; then return 0; fi
  log "ready: $(every_principal | tr '\n' ' ')"
}

COMMAND="${1:-}"
case "$COMMAND" in
  pki) pki ;;
  access) shift; access "$@" ;;
  *) die "usage: compose-kafka-access.sh pki | access [--dry-run]" ;;
esac
