# syntax=docker/dockerfile:1
# Images of the Node Pool control plane for docker-compose.yml (which builds them all: `docker compose up --build`).
# One Dockerfile for the five services and the demo-data loader:
#   docker build --build-arg SERVICE=quota-service -t nodepool/quota-service .    a service (the default target)
#   docker build --target demo-data -t nodepool/demo-data .                      the one-shot demo-data loader
# SERVICE is the Maven module: nodepool-api-service, quota-service, capacity-service, provisioner-service or
# preemption-service. JAVA_VERSION (default 21, the project's language level) picks the Temurin JDK and JRE.
#
# Stages: builder (JDK + Maven wrapper: packages the services), runtime-base (JRE + curl + an unprivileged user),
# demo-data (runtime-base + scripts/load-demo-data.sh) and service (runtime-base + one service's quarkus-app/).

ARG JAVA_VERSION=21

# ------------------------------------------------------------------------------------------------------------ builder
FROM eclipse-temurin:${JAVA_VERSION}-jdk AS builder
# .mvn/jvm.config passes --sun-misc-unsafe-memory-access=allow, an option of JDK 23 and later that a JDK 21 refuses
# ("Unrecognized option", Maven would not start). The developers' machines build with a newer JDK; here the JVM is
# told to skip options it does not know, which changes nothing on a JDK that knows it.
ENV MAVEN_OPTS="-XX:+IgnoreUnrecognizedVMOptions"
WORKDIR /build
# Maven itself (the version .mvn/wrapper pins) in a layer of its own, so a source change does not fetch it again.
COPY mvnw ./
COPY .mvn/ .mvn/
RUN ./mvnw -B -q --version
COPY . .
# The service modules to package; -am adds what they depend on (events-schema, service-kit, ...). This stage does not
# depend on SERVICE, so the five images of docker-compose.yml share one build of it instead of running Maven five
# times; build one service alone with --build-arg MODULES=<module>. The local Maven repository is a BuildKit cache
# mount, so a rebuild after a source change downloads nothing it already has.
ARG MODULES=nodepool-api-service,quota-service,capacity-service,provisioner-service,preemption-service
RUN --mount=type=cache,id=nodepool-m2,target=/root/.m2/repository,sharing=locked \
    ./mvnw -B -q -DskipTests package -pl "$MODULES" -am

# ------------------------------------------------------------------------------------------------------- runtime-base
FROM eclipse-temurin:${JAVA_VERSION}-jre AS runtime-base
# curl: the compose healthchecks (GET /q/health/ready, the very check of ./stack) and the demo-data loader use it.
# Temurin's Ubuntu images have shipped it up to 21 but no longer from 22 on (Adoptium keeps them minimal), so it is
# installed here whenever the base lacks it. The services run as an unprivileged user; their Kafka Streams state lives in
# /var/lib/nodepool/state, which that user owns (a named volume mounted there starts with this owner).
RUN set -eux; \
    if ! command -v curl >/dev/null 2>&1; then \
      apt-get update; \
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl; \
      rm -rf /var/lib/apt/lists/*; \
    fi; \
    groupadd --system nodepool; \
    useradd --system --gid nodepool --home-dir /app --no-create-home --shell /usr/sbin/nologin nodepool; \
    mkdir -p /app /var/lib/nodepool/state; \
    chown nodepool:nodepool /var/lib/nodepool/state
WORKDIR /app

# ---------------------------------------------------------------------------------------------------------- demo-data
# Loads the demo quotas and fleet once through the admin APIs; QUOTA_URL and CAPACITY_URL say where they are.
FROM runtime-base AS demo-data
COPY scripts/load-demo-data.sh /usr/local/bin/load-demo-data.sh
USER nodepool
ENTRYPOINT ["bash", "/usr/local/bin/load-demo-data.sh"]

# ------------------------------------------------------------------------------------------------------------ service
FROM runtime-base AS service
ARG SERVICE
RUN if [ -z "${SERVICE}" ]; then \
      echo "set the service to build: --build-arg SERVICE=<module>, e.g. SERVICE=quota-service" >&2; exit 1; \
    fi
LABEL org.opencontainers.image.title="${SERVICE}" \
      org.opencontainers.image.description="Node Pool control plane: ${SERVICE}"
# The fast-jar layout of Quarkus, dependencies first (they change least). Owned by root: the service only reads it.
COPY --from=builder /build/${SERVICE}/target/quarkus-app/lib/ quarkus-app/lib/
COPY --from=builder /build/${SERVICE}/target/quarkus-app/*.jar quarkus-app/
COPY --from=builder /build/${SERVICE}/target/quarkus-app/app/ quarkus-app/app/
COPY --from=builder /build/${SERVICE}/target/quarkus-app/quarkus/ quarkus-app/quarkus/
# Overrides kafka-streams.state.dir of application.properties (target/kafka-streams, not writable here). The other
# settings come as environment variables too (docker-compose.yml): KAFKA_BOOTSTRAP_SERVERS, QUARKUS_PROFILE, and
# JDK_JAVA_OPTIONS for JVM options such as -Xmx.
ENV KAFKA_STREAMS_STATE_DIR=/var/lib/nodepool/state
USER nodepool
# The JVM options of every process the project runs (jvm.options: C1 only, a throughput collector).
COPY jvm.options /app/jvm.options
# RocksDB (Kafka Streams' stores) uses native access: needed on JDK 22 and later, accepted on 21.
ENTRYPOINT ["java", "@/app/jvm.options", "--enable-native-access=ALL-UNNAMED", "-jar", "quarkus-app/quarkus-run.jar"]
