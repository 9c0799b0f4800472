package com.coreweave.nodepool.quota.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.quota.Pools;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What the service accepts from its two input topics, and the dead-letter code of what it refuses. */
class RecordReadersTest {

  private final AcceptedPoolReader pools = new AcceptedPoolReader();
  private final QuotaLimitReader limits = new QuotaLimitReader();

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldReadAnAcceptedPoolAndATombstone() {
    var accepted = Pools.accepted("demo", "a", "uid-a", 1, 3);

    assertThat(pools.read("demo/a", Json.bytes(accepted))).isEqualTo(accepted);
    assertThat(pools.read("demo/a", null)).isNull();
  }

  @Test
  void shouldRefuseAnAcceptedPoolThatCannotBeKeyedByQuota() {
    assertThatThrownBy(() -> pools.read("demo/a", utf8("{not json"))).isInstanceOf(Rejection.class)
        .extracting(e -> ((Rejection) e).code()).isEqualTo("Unreadable");
    assertThatThrownBy(() -> pools.read("demo/b", Json.bytes(Pools.accepted("demo", "a", "uid-a", 1, 3))))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("KeyMismatch");
    assertThatThrownBy(() -> pools.read("no-slash", null))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidKey");
    assertThatThrownBy(() -> pools.read("demo/a", utf8("{\"org\":\"demo\"}")))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidRecord");
    var noUid = Pools.accepted("demo", "a", null, 1, 3);
    assertThatThrownBy(() -> pools.read("demo/a", Json.bytes(noUid)))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidRecord");
  }

  @Test
  void shouldReadALimitAndATombstone() {
    var limit = new QuotaLimit("demo", Pools.ZONE, Pools.TYPE, 0, Instant.parse("2026-01-01T00:00:00Z"));
    String key = "demo/" + Pools.ZONE + "/" + Pools.TYPE;

    assertThat(limits.read(key, Json.bytes(limit))).isEqualTo(limit);
    assertThat(limits.read(key, null)).isNull();
  }

  @Test
  void shouldRefuseALimitThatIsNotOne() {
    String key = "demo/" + Pools.ZONE + "/" + Pools.TYPE;
    String body = "{\"org\":\"demo\",\"zone\":\"US-EAST-04A\",\"instanceType\":\"gd-8xa100-i128\"";

    assertThatThrownBy(() -> limits.read(key, utf8(body + "}"))).as("no maxNodes is not a quota of 0")
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidRecord");
    assertThatThrownBy(() -> limits.read(key, utf8(body + ",\"maxNodes\":-1}")))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidRecord");
    assertThatThrownBy(() -> limits.read(key, utf8(body + ",\"maxNodes\":\"ten\"}")))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidRecord");
    assertThatThrownBy(() -> limits.read("demo/US-EAST-04A/other-type", utf8(body + ",\"maxNodes\":3}")))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("KeyMismatch");
    assertThatThrownBy(() -> limits.read("demo/US-EAST-04A", null))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("InvalidKey");
    assertThatThrownBy(() -> limits.read(key, utf8("]")))
        .extracting(e -> ((Rejection) e).code()).isEqualTo("Unreadable");
  }
}
