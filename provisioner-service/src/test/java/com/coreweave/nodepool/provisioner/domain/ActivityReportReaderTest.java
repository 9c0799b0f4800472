package com.coreweave.nodepool.provisioner.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.streams.Rejection;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ActivityReportReaderTest {

  final ActivityReportReader reader = new ActivityReportReader();

  static byte[] json(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  void rejected(String key, String value, String code, String reason) {
    assertThatThrownBy(() -> reader.read(key, value == null ? null : json(value)))
        .isInstanceOfSatisfying(Rejection.class, r -> {
          assertThat(r.code()).isEqualTo(code);
          assertThat(r.reason()).contains(reason);
        });
  }

  @Test
  void aReportForTheKeysPoolIsRead() {
    var report = reader.read("demo/train", json("""
        {"org":"demo","pool":"train","node":"n-1","active":true,"terminationGracePeriodSeconds":90,
         "reportedAt":"2026-11-22T10:00:00Z"}"""));

    assertThat(report.node()).isEqualTo("n-1");
    assertThat(report.active()).isTrue();
    assertThat(report.terminationGracePeriodSeconds()).isEqualTo(90);
    assertThat(report.drainBlocked()).isFalse();
  }

  @Test
  void aDisruptionBudgetThatAllowsNoEvictionBlocksADrain() {
    var report = reader.read("demo/train", json("""
        {"org":"demo","pool":"train","node":"n-1","active":true,"disruptionsAllowed":0}"""));

    assertThat(report.disruptionsAllowed()).isZero();
    assertThat(report.drainBlocked()).isTrue();
  }

  @Test
  void anythingElseIsRejectedWithACodeAndAReason() {
    rejected("demo/train", "{not json", ActivityReportReader.MALFORMED_JSON, "not JSON");
    rejected("demo/train", null, ActivityReportReader.INVALID_REPORT, "no value");
    rejected("demo/train", "[1]", ActivityReportReader.INVALID_REPORT, "not a JSON object");
    rejected("demo/train", "{\"org\":\"demo\",\"pool\":\"train\",\"active\":true}",
        ActivityReportReader.INVALID_REPORT, "node is required");
    rejected("demo/train", "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"n-1\"}",
        ActivityReportReader.INVALID_REPORT, "active is required");
    rejected("demo/train", "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"n-1\",\"active\":\"yes\"}",
        ActivityReportReader.INVALID_REPORT, "active is required");
    rejected("demo/train", "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"n-1\",\"active\":false,"
        + "\"terminationGracePeriodSeconds\":-1}", ActivityReportReader.INVALID_REPORT, "whole number");
    rejected("demo/train", "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"n-1\",\"active\":true,"
        + "\"disruptionsAllowed\":\"none\"}", ActivityReportReader.INVALID_REPORT, "disruptionsAllowed");
    rejected("demo/other", "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"n-1\",\"active\":false}",
        ActivityReportReader.KEY_MISMATCH, "demo/train");
    rejected("no-slash", "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"n-1\",\"active\":false}",
        "InvalidKey", "<org>/<pool name>");
    rejected(null, "{}", "InvalidKey", "missing");
  }
}
