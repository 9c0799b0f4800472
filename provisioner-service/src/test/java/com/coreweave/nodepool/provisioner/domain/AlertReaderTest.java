package com.coreweave.nodepool.provisioner.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.events.NodeAlert;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AlertReaderTest {

  static final String RAISED = """
      {"specversion":"1.0","id":"a-1","source":"monitoring/dcgm","type":"NodeAlertRaised","subject":"demo/train",
       "time":"2026-11-22T10:00:00Z","datacontenttype":"application/json",
       "data":{"node":"n-1","alert":"GPUFallenOffBus","details":"Xid 79 on GPU 3"}}""";

  final AlertReader reader = new AlertReader();

  void rejected(String key, String value, String code, String reason) {
    assertThatThrownBy(() -> reader.read(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(Rejection.class, r -> {
          assertThat(r.code()).isEqualTo(code);
          assertThat(r.reason()).contains(reason);
        });
  }

  @Test
  void aRaisedOrResolvedAlertForTheKeysPoolIsRead() {
    var event = reader.read("demo/train", RAISED.getBytes(StandardCharsets.UTF_8));

    assertThat(event.type()).isEqualTo(NodeAlert.RAISED);
    assertThat(event.time()).isEqualTo(Instant.parse("2026-11-22T10:00:00Z"));
    assertThat(event.data()).isEqualTo(new NodeAlert("n-1", "GPUFallenOffBus", "Xid 79 on GPU 3"));
    var resolved = reader.read("demo/train", RAISED.replace("NodeAlertRaised", "NodeAlertResolved")
        .replace(",\"details\":\"Xid 79 on GPU 3\"", "").getBytes(StandardCharsets.UTF_8));
    assertThat(resolved.data().details()).isNull();
    assertThat(reader.read("demo/train", RAISED.replace("GPUFallenOffBus", "NotInTheCatalogue")
        .getBytes(StandardCharsets.UTF_8)).data().alert()).as("recorded, never acted on")
        .isEqualTo("NotInTheCatalogue");
  }

  @Test
  void anythingElseIsRejectedWithACodeAndAReason() {
    rejected("demo/train", "{nope", AlertReader.MALFORMED_JSON, "not JSON");
    rejected("demo/train", null, AlertReader.INVALID_CLOUD_EVENT, "no value");
    rejected("demo/train", RAISED.replace("\"1.0\"", "\"0.3\""), AlertReader.INVALID_CLOUD_EVENT, "specversion");
    rejected("demo/train", RAISED.replace("\"id\":\"a-1\",", ""), AlertReader.INVALID_CLOUD_EVENT, "id is required");
    rejected("demo/train", RAISED.replace("NodeAlertRaised", "NodeRebooted"), AlertReader.UNSUPPORTED_TYPE,
        "NodeRebooted");
    rejected("demo/other", RAISED, AlertReader.KEY_MISMATCH, "demo/train");
    rejected("demo/train", RAISED.replace("2026-11-22T10:00:00Z", "yesterday"), AlertReader.INVALID_CLOUD_EVENT,
        "RFC 3339");
    rejected("demo/train", RAISED.replace("\"node\":\"n-1\",", ""), AlertReader.INVALID_ALERT, "node is required");
    rejected("demo/train", RAISED.replace("GPUFallenOffBus", "Xid 79; rm -rf"), AlertReader.INVALID_ALERT,
        "alert name");
    rejected("demo/train", RAISED.replace("\"Xid 79 on GPU 3\"", "42"), AlertReader.INVALID_ALERT, "details");
    rejected("no-slash", RAISED, "InvalidKey", "<org>/<pool name>");
  }
}
