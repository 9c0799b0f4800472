#!/usr/bin/env bash
# Builds a librdkafka that can log in to Kafka 4 with SCRAM into ${NODEPOOL_LIBRDKAFKA:-~/.cache/nodepool/librdkafka}
# (lib/librdkafka.so.1), for kcat and other librdkafka clients of a distribution that ships an older one (Debian 12:
# 2.0.2). librdkafka before 2.6.1 sends a SCRAM nonce that Kafka 4 refuses as "invalid credentials"
# (confluentinc/librdkafka#4895). The source comes from the npm registry (node-rdkafka bundles librdkafka); building
# it takes about two minutes on two cores and needs gcc, make and OpenSSL's headers (libssl-dev). scripts/kcat runs
# kcat with it.
set -euo pipefail

NODE_RDKAFKA_VERSION=3.6.1 # bundles librdkafka 2.12.0
TARGET="${NODEPOOL_LIBRDKAFKA:-$HOME/.cache/nodepool/librdkafka}"

if [[ -f "$TARGET/lib/librdkafka.so.1" && -f "$TARGET/node-rdkafka-$NODE_RDKAFKA_VERSION" ]]; then
  echo "librdkafka: already built in $TARGET"
  exit 0
fi
for tool in npm gcc make tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "librdkafka: $tool is needed" >&2; exit 1; }
done
[[ -f /usr/include/openssl/ssl.h ]] || { echo "librdkafka: OpenSSL's headers are needed (apt-get install libssl-dev)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "librdkafka: fetching node-rdkafka $NODE_RDKAFKA_VERSION's bundled source from the npm registry"
(cd "$work" && npm pack --silent "node-rdkafka@$NODE_RDKAFKA_VERSION" >/dev/null && tar xzf "node-rdkafka-$NODE_RDKAFKA_VERSION.tgz")
echo "librdkafka: building into $TARGET (log: $work/build.log while it runs)"
rm -rf "$TARGET"
(
  cd "$work/package/deps/librdkafka"
  ./configure --prefix="$TARGET" --disable-gssapi --disable-curl --disable-zstd --disable-lz4-ext
  make -j"$(nproc 2>/dev/null || echo 2)" libs
  make install-subdirs
) >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; echo "librdkafka: the build failed" >&2; exit 1; }
touch "$TARGET/node-rdkafka-$NODE_RDKAFKA_VERSION"
echo "librdkafka: built $(ls "$TARGET"/lib/librdkafka.so.1) (librdkafka $(sed -n 's/^Version: //p' "$TARGET/lib/pkgconfig/rdkafka.pc"))"
