package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads a {@code node-activity-reported} record, which platform teams publish: keyed {@code <org>/<pool>}, a
 * {@code NodeActivityReported} for the same org and pool naming the node and whether it runs work (optionally its
 * grace period and the disruptions its budget allows). Anything else is rejected with a code and a reason for the
 * dead-letter headers.
 */
public final class ActivityReportReader implements RecordReader<NodeActivityReported> {

  public static final String MALFORMED_JSON = "MalformedJson";
  public static final String INVALID_REPORT = "InvalidReport";
  public static final String KEY_MISMATCH = "KeyMismatch";

  @Override
  public NodeActivityReported read(String key, byte[] value) {
    PoolKey poolKey = RecordReader.poolKey(key);
    if (value == null) {
      throw new Rejection(INVALID_REPORT, "record has no value");
    }
    JsonNode report;
    try {
      report = Json.mapper().readTree(value);
    } catch (Exception e) {
      throw new Rejection(MALFORMED_JSON, "value is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (report == null || !report.isObject()) {
      throw new Rejection(INVALID_REPORT, "value is not a JSON object (a NodeActivityReported)");
    }
    String org = requiredText(report, "org");
    String pool = requiredText(report, "pool");
    requiredText(report, "node");
    if (!report.path("active").isBoolean()) {
      throw new Rejection(INVALID_REPORT, "active is required and must be true or false");
    }
    if (!wholeOrAbsent(report.get("terminationGracePeriodSeconds"))) {
      throw new Rejection(INVALID_REPORT, "terminationGracePeriodSeconds must be a whole number of seconds >= 0");
    }
    if (!wholeOrAbsent(report.get("disruptionsAllowed"))) {
      throw new Rejection(INVALID_REPORT, "disruptionsAllowed must be a whole number >= 0 (the workload's "
          + "PodDisruptionBudget status)");
    }
    if (!poolKey.org().equals(org) || !poolKey.pool().equals(pool)) {
      throw new Rejection(KEY_MISMATCH, "the report is about " + org + "/" + pool + " but its key is \"" + key
          + "\"");
    }
    try {
      return Json.mapper().treeToValue(report, NodeActivityReported.class);
    } catch (Exception e) {
      throw new Rejection(INVALID_REPORT, "value is not a NodeActivityReported: " + e.getMessage());
    }
  }

  private static boolean wholeOrAbsent(JsonNode number) {
    return number == null || number.isNull()
        || number.canConvertToInt() && number.isIntegralNumber() && number.asInt() >= 0;
  }

  private static String requiredText(JsonNode report, String field) {
    JsonNode node = report.get(field);
    if (node == null || !node.isTextual() || node.asText().isBlank()) {
      throw new Rejection(INVALID_REPORT, field + " is required and must be a non-empty string");
    }
    return node.asText();
  }
}
