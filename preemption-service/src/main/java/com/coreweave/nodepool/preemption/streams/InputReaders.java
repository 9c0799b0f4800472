package com.coreweave.nodepool.preemption.streams;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.util.regex.Pattern;

/** Reads the service's inputs and refuses, with a reason for the dead-letter headers, what it cannot act on. */
final class InputReaders {

  /** A Kubernetes Node name: a DNS-1123 subdomain. */
  private static final Pattern NODE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private InputReaders() {
  }

  /**
   * A reclaim must name its spot pool under the record's key and at least one node: nodes of reserved pools are
   * never preempted.
   */
  static RecordReader<SpotReclaimRequested> reclaim() {
    RecordReader<SpotReclaimRequested> json = RecordReader.json(SpotReclaimRequested.class);
    return (key, value) -> {
      SpotReclaimRequested reclaim = json.read(key, value);
      if (blank(reclaim.reclaimId())) {
        throw new Rejection("InvalidReclaim", "reclaimId is required");
      }
      if (reclaim.pool() == null) {
        throw new Rejection("InvalidReclaim", "pool is required");
      }
      requireKey(key, reclaim.pool().org(), reclaim.pool().pool());
      if (!reclaim.pool().spot()) {
        throw new Rejection("NotSpotPool", "pool " + key + " has computeClass " + reclaim.pool().computeClass()
            + "; only nodes of spot pools are preempted");
      }
      if (reclaim.nodes() == null || reclaim.nodes().isEmpty()) {
        throw new Rejection("InvalidReclaim", "nodes must name at least one node");
      }
      reclaim.nodes().forEach(node -> requireNodeName(node, "InvalidReclaim"));
      return reclaim;
    };
  }

  /** An activity report must be about a node of the pool under the record's key. */
  static RecordReader<NodeActivityReported> activity() {
    RecordReader<NodeActivityReported> json = RecordReader.json(NodeActivityReported.class);
    return (key, value) -> {
      NodeActivityReported report = json.read(key, value);
      requireKey(key, report.org(), report.pool());
      requireNodeName(report.node(), "InvalidActivity");
      if (report.terminationGracePeriodSeconds() != null && report.terminationGracePeriodSeconds() < 0) {
        throw new Rejection("InvalidActivity", "terminationGracePeriodSeconds must not be negative, got "
            + report.terminationGracePeriodSeconds());
      }
      return report;
    };
  }

  /** A node fact must name its pool (and, about a node, the node), or the service could not match it. */
  static RecordReader<NodeFact> nodeFact() {
    RecordReader<NodeFact> json = RecordReader.json(NodeFact.class);
    return (key, value) -> {
      NodeFact fact = json.read(key, value);
      if (fact.pool() == null) {
        throw new Rejection("InvalidNodeFact", "pool is required");
      }
      requireKey(key, fact.pool().org(), fact.pool().pool());
      if (fact instanceof NodeFact.AboutNode about && (about.node() == null
          || about.node().metadata() == null || about.node().name() == null)) {
        throw new Rejection("InvalidNodeFact", "node.metadata.name is required");
      }
      return fact;
    };
  }

  private static void requireKey(String key, String org, String pool) {
    String expected = org + "/" + pool;
    if (!expected.equals(key)) {
      throw new Rejection("KeyMismatch", "key '" + key + "' does not match the pool named in the value, '"
          + expected + "'");
    }
  }

  private static void requireNodeName(String node, String code) {
    if (node == null || node.length() > 253 || !NODE_NAME.matcher(node).matches()) {
      throw new Rejection(code, "'" + node + "' is not a node name (a DNS-1123 subdomain)");
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
