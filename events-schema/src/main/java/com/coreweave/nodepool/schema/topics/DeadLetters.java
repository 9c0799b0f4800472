package com.coreweave.nodepool.schema.topics;

/**
 * The headers every dead-letter record carries: the original key and value stay as received, these say why and
 * where from. A dead-letter topic is {@code <inbound topic>-dlq} for the public inbound topics and
 * {@code <service>-dlq} for records a service could not read from an internal topic.
 */
public final class DeadLetters {

  private DeadLetters() {
  }

  /** A human-readable reason, e.g. "value is not JSON: Unexpected character ...". */
  public static final String REASON = "dlq.reason";
  /** A stable machine-readable code: MalformedJson, InvalidCloudEvent, KeyMismatch, InvalidSpec, Conflict, ... */
  public static final String ERROR = "dlq.error";
  public static final String SOURCE_TOPIC = "dlq.source.topic";
  public static final String SOURCE_PARTITION = "dlq.source.partition";
  public static final String SOURCE_OFFSET = "dlq.source.offset";
  /** The service that refused the record. */
  public static final String SERVICE = "dlq.service";
  public static final String FAILED_AT = "dlq.failed.at";

  public static String serviceTopic(String service) {
    return service + "-dlq";
  }
}
