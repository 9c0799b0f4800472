package com.coreweave.nodepool.kit.streams;

import com.coreweave.nodepool.schema.topics.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Reads a topic as raw bytes and parses each record inside the topology, so that a record that cannot be read goes
 * to a dead-letter topic in the same transaction as everything else (exactly once, nothing lost, nothing blocked).
 */
public final class DeadLetterRouting {

  private DeadLetterRouting() {
  }

  /** Either the value read from a record, or the raw record with the headers saying why it was refused. */
  private record Parsed<T>(T value, byte[] raw, boolean refused) {
  }

  /**
   * The values of {@code topic} that {@code reader} accepts (a tombstone stays a null value when the reader allows
   * it); the rest go to {@code deadLetterTopic}.
   */
  public static <T> KStream<String, T> parse(StreamsBuilder builder, String topic, RecordReader<T> reader,
                                             String deadLetterTopic, String service, Clock clock) {
    KStream<String, byte[]> raw = builder.stream(topic, Consumed.with(Serdes.String(), Serdes.ByteArray())
        .withName("read-" + topic));
    KStream<String, Parsed<T>> parsed = raw.processValues(() -> new ParseProcessor<>(topic, reader, service, clock),
        Named.as("parse-" + topic));
    Map<String, KStream<String, Parsed<T>>> branches = parsed.split(Named.as("route-" + topic + "-"))
        .branch((key, value) -> value.refused(), Branched.as("refused"))
        .defaultBranch(Branched.as("read"));
    branches.get("route-" + topic + "-refused")
        .mapValues(Parsed::raw, Named.as("raw-" + topic))
        .to(deadLetterTopic, Produced.with(Serdes.String(), Serdes.ByteArray()).withName("dead-letter-" + topic));
    return branches.get("route-" + topic + "-read").mapValues(Parsed::value, Named.as("value-" + topic));
  }

  /** The dead-letter headers for a refused record. */
  public static Headers headers(Rejection rejection, String topic, int partition, long offset, String service,
                                Clock clock) {
    Headers headers = new RecordHeaders();
    headers.add(DeadLetters.REASON, utf8(rejection.reason()));
    headers.add(DeadLetters.ERROR, utf8(rejection.code()));
    headers.add(DeadLetters.SOURCE_TOPIC, utf8(topic));
    headers.add(DeadLetters.SOURCE_PARTITION, utf8(Integer.toString(partition)));
    headers.add(DeadLetters.SOURCE_OFFSET, utf8(Long.toString(offset)));
    headers.add(DeadLetters.SERVICE, utf8(service));
    headers.add(DeadLetters.FAILED_AT, utf8(clock.instant().toString()));
    return headers;
  }

  private static byte[] utf8(String value) {
    return (value == null ? "" : value).getBytes(StandardCharsets.UTF_8);
  }

  private static final class ParseProcessor<T> implements FixedKeyProcessor<String, byte[], Parsed<T>> {
    private final String topic;
    private final RecordReader<T> reader;
    private final String service;
    private final Clock clock;
    private FixedKeyProcessorContext<String, Parsed<T>> context;

    ParseProcessor(String topic, RecordReader<T> reader, String service, Clock clock) {
      this.topic = topic;
      this.reader = reader;
      this.service = service;
      this.clock = clock;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<T>> context) {
      this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
      try {
        context.forward(record.withValue(new Parsed<>(reader.read(record.key(), record.value()), null, false)));
      } catch (Rejection rejection) {
        var meta = context.recordMetadata().orElseThrow();
        Headers headers = headers(rejection, topic, meta.partition(), meta.offset(), service, clock);
        record.headers().forEach(h -> headers.add(h));
        context.forward(record.withValue(new Parsed<T>(null, record.value(), true)).withHeaders(headers));
      }
    }
  }
}
