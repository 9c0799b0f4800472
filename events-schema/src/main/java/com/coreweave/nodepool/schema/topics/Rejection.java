package com.coreweave.nodepool.schema.topics;

/**
 * Why a record cannot be used: a {@link Code} (the {@code dlq.error} header) and a reason for people (the
 * {@code dlq.reason} header). Thrown by {@link Topic#read} and by a service's own reading of a record.
 */
public class Rejection extends RuntimeException {

    /** Every reason a record is dead-lettered, as {@code dlq.error} says it; one list for every topic and service. */
    public enum Code {
        /** The record has no key. */
        KEY_MISSING("KeyMissing"),
        /** The key is not of the topic's form (e.g. {@code <org>/<pool>}). */
        INVALID_KEY("InvalidKey"),
        /** No value where the topic has no tombstones. */
        VALUE_MISSING("ValueMissing"),
        /** The value is not JSON. */
        MALFORMED_JSON("MalformedJson"),
        /** The value is JSON but not the topic's record, or lacks what the record needs. */
        INVALID_RECORD("InvalidRecord"),
        /** The value is about another pool, quota, ledger or train than its key says. */
        KEY_MISMATCH("KeyMismatch"),
        /** A {@code nodepool-requested} value that is not a CloudEvent in structured JSON mode. */
        INVALID_CLOUD_EVENT("InvalidCloudEvent"),
        /** A CloudEvent of a type the topic does not carry. */
        UNSUPPORTED_TYPE("UnsupportedType"),
        /** A NodePool manifest that breaks a structural rule. */
        INVALID_SPEC("InvalidSpec"),
        /** A spot reclaim of a pool that is not a spot pool. */
        NOT_SPOT_POOL("NotSpotPool"),
        /** Capacity for an instance type where it is not offered. */
        INSTANCE_TYPE_NOT_IN_ZONE("InstanceTypeNotInZone"),
        /** A request refused when it was decided (Kubernetes Status reasons): the pool exists already. */
        ALREADY_EXISTS("AlreadyExists"),
        /** ... the pool does not exist. */
        NOT_FOUND("NotFound"),
        /** ... a stale {@code resourceVersion}, or the pool is being deleted. */
        CONFLICT("Conflict"),
        /** ... an immutable field changed. */
        INVALID("Invalid"),
        /** ... the org has as many pools as its pool count quota allows. */
        FORBIDDEN("Forbidden"),
        /** A record the service made but could not write: larger than its producer may send. */
        RECORD_TOO_LARGE("RecordTooLarge"),
        /** A record the service made but could not write: its key or value did not serialize. */
        SERIALIZATION_FAILED("SerializationFailed"),
        /** A record the service's own code failed on (an exception of its processor, not of Kafka). */
        PROCESSING_FAILED("ProcessingFailed");

        private final String header;

        Code(String header) {
            this.header = header;
        }

        /** The value of the {@code dlq.error} header. */
        public String header() {
            return header;
        }

        /** The code of a {@code dlq.error} header or Kubernetes Status reason, or null for an unknown one. */
        public static Code ofHeader(String header) {
            for (Code code : values()) {
                if (code.header.equals(header)) {
                    return code;
                }
            }
            return null;
        }
    }

    private final Code code;

    public Rejection(Code code, String reason) {
        super(reason);
        this.code = code;
    }

    public Code code() {
        return code;
    }

    public String reason() {
        return getMessage();
    }
}
