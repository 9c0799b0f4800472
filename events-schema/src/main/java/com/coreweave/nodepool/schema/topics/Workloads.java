package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.resource.Taint;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How {@code workload-pending} is read: a {@code WorkloadPending}, {@code WorkloadScheduled} or {@code WorkloadGone}
 * CloudEvent in structured JSON mode whose {@code subject} is the record key {@code <org>/<workload>}, its {@code data}
 * a {@link Workload} of that org and name. Every field is bounded: a record a scheduler got wrong is dead-lettered with
 * the reason, never half read.
 */
final class Workloads {

    private Workloads() {}

    /** A workload id: a DNS-1123 subdomain, as a Kubernetes object's name. */
    private static final Pattern NAME =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private static final int MAX_NAME = 253;
    private static final int MAX_TEXT = 316;
    private static final int MAX_GPUS = 64;

    static final ValueFormat<CloudEvent<Workload>> FORMAT =
            new ValueFormat<>("CloudEvent WorkloadPending", Workloads::decode);

    static final RecordCheck<PoolKey, CloudEvent<Workload>> CHECK = (key, event) -> {
        NodePoolRequests.requireSubject(key, event);
        Workload workload = event.data();
        if (!key.org().equals(workload.org()) || !key.pool().equals(workload.name())) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "record key \"" + key + "\" does not match data.org/data.name \"" + workload.org() + "/"
                            + workload.name() + "\"");
        }
    };

    private static CloudEvent<Workload> decode(byte[] value) {
        CloudEvent<JsonNode> event =
                NodePoolRequests.envelope(value, Set.of(Workload.PENDING, Workload.SCHEDULED, Workload.GONE));
        JsonNode data = event.data();
        if (data == null || !data.isObject()) {
            throw invalid("data must be an object {org, name, pods, gang, needs}");
        }
        Workload workload;
        try {
            workload = Json.mapper().treeToValue(data, Workload.class);
        } catch (Exception e) {
            throw invalid("data is not a Workload: " + ValueFormat.firstLine(e.getMessage()));
        }
        check(workload, event.type());
        return event.withData(workload);
    }

    /** Every bound of a workload; a {@code WorkloadGone} needs only its org and name. */
    static void check(Workload workload, String type) {
        if (workload.org() == null || !TenantTopics.validOrg(workload.org())) {
            throw invalid("data.org must be an org id, was " + quoted(workload.org()));
        }
        if (workload.name() == null
                || workload.name().length() > MAX_NAME
                || !NAME.matcher(workload.name()).matches()) {
            throw invalid("data.name must be a DNS-1123 subdomain of at most " + MAX_NAME + " characters, was "
                    + quoted(workload.name()));
        }
        if (Workload.GONE.equals(type)) {
            return;
        }
        if (workload.pods() < 1 || workload.pods() > Workload.MAX_PODS) {
            throw invalid("data.pods must be within 1 and " + Workload.MAX_PODS + ", was " + workload.pods());
        }
        Integer scheduled = workload.scheduled();
        if (scheduled != null && (scheduled < 0 || scheduled > workload.pods())) {
            throw invalid("data.scheduled must be within 0 and data.pods (" + workload.pods() + "), was " + scheduled);
        }
        Workload.Needs needs = workload.needs();
        if (needs == null) {
            throw invalid("data.needs is required: an instanceType or a gpuModel");
        }
        if ((needs.instanceType() == null) == (needs.gpuModel() == null)) {
            throw invalid("data.needs must name exactly one of instanceType and gpuModel");
        }
        segment("data.needs.instanceType", needs.instanceType());
        segment("data.needs.gpuModel", needs.gpuModel());
        segment("data.needs.zone", needs.zone());
        if (needs.gpus() != null && (needs.gpus() < 0 || needs.gpus() > MAX_GPUS)) {
            throw invalid("data.needs.gpus must be within 0 and " + MAX_GPUS + ", was " + needs.gpus());
        }
        if (needs.nodeSelector().size() > Workload.MAX_SELECTOR) {
            throw invalid("data.needs.nodeSelector may have at most " + Workload.MAX_SELECTOR + " entries");
        }
        for (Map.Entry<String, String> entry : needs.nodeSelector().entrySet()) {
            text("data.needs.nodeSelector key", entry.getKey());
            text("data.needs.nodeSelector value", entry.getValue());
        }
        if (needs.tolerations().size() > Workload.MAX_TOLERATIONS) {
            throw invalid("data.needs.tolerations may have at most " + Workload.MAX_TOLERATIONS + " entries");
        }
        for (Workload.Toleration toleration : needs.tolerations()) {
            if (toleration == null) {
                throw invalid("data.needs.tolerations may not hold null");
            }
            text("a toleration's key", toleration.key());
            text("a toleration's value", toleration.value());
            if (toleration.operator() != null
                    && !toleration.operator().equals(Workload.Toleration.EXISTS)
                    && !toleration.operator().equals("Equal")) {
                throw invalid("a toleration's operator must be Exists or Equal, was " + quoted(toleration.operator()));
            }
            if (toleration.effect() != null
                    && !toleration.effect().isEmpty()
                    && !Taint.EFFECTS.contains(toleration.effect())) {
                throw invalid("a toleration's effect must be one of " + Taint.EFFECTS + ", was "
                        + quoted(toleration.effect()));
            }
        }
    }

    /** A bounded string; an instance type, GPU model or zone also without '/' (they make keys). */
    private static void text(String field, String value) {
        if (value != null && value.length() > MAX_TEXT) {
            throw invalid(field + " must be at most " + MAX_TEXT + " characters");
        }
    }

    private static void segment(String field, String value) {
        text(field, value);
        if (value != null && (value.isBlank() || value.contains("/"))) {
            throw invalid(field + " must be non-empty and without '/', was " + quoted(value));
        }
    }

    private static String quoted(String value) {
        return value == null ? "null" : "\"" + value + "\"";
    }

    private static Rejection invalid(String reason) {
        return new Rejection(Code.INVALID_RECORD, reason);
    }
}
