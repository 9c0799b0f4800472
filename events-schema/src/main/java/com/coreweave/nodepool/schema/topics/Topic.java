package com.coreweave.nodepool.schema.topics;

import java.time.Duration;

/**
 * A topic of the system: its name, the type of its values (keys are always strings), whether it is compacted, how
 * long records stay, and which service is its single writer. {@link Topics} lists them all.
 */
public record Topic<V>(String name, Class<V> valueType, boolean compacted, Duration retention, String owner,
                       String key, String description) {

  /** The topic's dead-letter companion: same key, raw value, reason in headers. */
  public String deadLetterName() {
    return name + "-dlq";
  }
}
