package com.coreweave.nodepool.kit.audit;

import com.coreweave.nodepool.kit.audit.AuditEvent.ObjectRef;
import com.coreweave.nodepool.kit.audit.AuditEvent.ResponseStatus;
import com.coreweave.nodepool.kit.audit.AuditEvent.User;
import com.coreweave.nodepool.schema.Limits;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Cuts an audit event to its bounds ({@link Limits#MAX_AUDIT_EVENT_BYTES} as JSON): every field a caller chooses (the
 * path and query, user agent, forwarded addresses, names, a refusal's message) is cut to a length of its own, so a
 * request with huge headers costs the trail what a plain one does.
 */
public final class AuditBounds {

    static final int URI_CHARS = 512;
    static final int USER_AGENT_CHARS = 256;
    static final int SOURCE_IPS = 4;
    static final int IP_CHARS = 64;
    static final int NAME_CHARS = 253;
    static final int GROUPS = 4;
    static final int MESSAGE_CHARS = 1024;
    static final int ANNOTATIONS = 12;
    static final int ANNOTATION_CHARS = 256;

    private AuditBounds() {}

    /** The event with every field within its bound; the event itself if it already was. */
    public static AuditEvent bounded(AuditEvent event) {
        AuditEvent cut = new AuditEvent(
                event.kind(),
                event.apiVersion(),
                event.level(),
                cut(event.auditID(), NAME_CHARS),
                event.stage(),
                cut(event.requestURI(), URI_CHARS),
                cut(event.verb(), NAME_CHARS),
                user(event.user()),
                ips(event.sourceIPs()),
                cut(event.userAgent(), USER_AGENT_CHARS),
                object(event.objectRef()),
                status(event.responseStatus(), MESSAGE_CHARS),
                event.requestReceivedTimestamp(),
                event.stageTimestamp(),
                annotations(event.annotations()));
        if (size(cut) <= Limits.MAX_AUDIT_EVENT_BYTES) {
            return cut;
        }
        // Multi-byte characters can still pass the byte bound: the message and the extras go first.
        return new AuditEvent(
                cut.kind(),
                cut.apiVersion(),
                cut.level(),
                cut.auditID(),
                cut.stage(),
                cut(cut.requestURI(), URI_CHARS / 4),
                cut.verb(),
                cut.user(),
                cut.sourceIPs() == null ? null : cut.sourceIPs().subList(0, 1),
                cut(cut.userAgent(), USER_AGENT_CHARS / 4),
                cut.objectRef(),
                status(cut.responseStatus(), MESSAGE_CHARS / 8),
                cut.requestReceivedTimestamp(),
                cut.stageTimestamp(),
                null);
    }

    /** The event's size as the trail writes it, in bytes. */
    public static int size(AuditEvent event) {
        try {
            return AuditLog.line(event).getBytes(StandardCharsets.UTF_8).length;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("an audit event that does not serialize", e);
        }
    }

    static String cut(String value, int chars) {
        if (value == null || value.length() <= chars) {
            return value;
        }
        return value.substring(0, chars - 1) + "…";
    }

    private static User user(User user) {
        if (user == null) {
            return null;
        }
        List<String> groups = user.groups() == null
                ? null
                : user.groups().stream()
                        .limit(GROUPS)
                        .map(g -> cut(g, NAME_CHARS))
                        .toList();
        return new User(cut(user.username(), NAME_CHARS), groups);
    }

    private static List<String> ips(List<String> ips) {
        if (ips == null) {
            return null;
        }
        // The last is the connection's peer, which the service observed: it is kept whatever the client sent before.
        List<String> kept = ips.size() <= SOURCE_IPS
                ? ips
                : Stream.concat(ips.subList(0, SOURCE_IPS - 1).stream(), Stream.of(ips.getLast()))
                        .toList();
        return kept.stream().map(ip -> cut(ip, IP_CHARS)).toList();
    }

    private static ObjectRef object(ObjectRef ref) {
        if (ref == null) {
            return null;
        }
        return new ObjectRef(
                cut(ref.resource(), NAME_CHARS),
                cut(ref.namespace(), NAME_CHARS),
                cut(ref.name(), NAME_CHARS),
                cut(ref.apiGroup(), NAME_CHARS),
                cut(ref.apiVersion(), NAME_CHARS),
                cut(ref.subresource(), NAME_CHARS));
    }

    private static ResponseStatus status(ResponseStatus status, int messageChars) {
        if (status == null) {
            return null;
        }
        return new ResponseStatus(
                status.code(), status.status(), cut(status.reason(), NAME_CHARS), cut(status.message(), messageChars));
    }

    private static Map<String, String> annotations(Map<String, String> annotations) {
        if (annotations == null) {
            return null;
        }
        Map<String, String> kept = new TreeMap<>();
        for (Map.Entry<String, String> entry : annotations.entrySet()) {
            if (kept.size() == ANNOTATIONS) {
                break;
            }
            kept.put(cut(entry.getKey(), NAME_CHARS / 2), cut(entry.getValue(), ANNOTATION_CHARS));
        }
        return kept;
    }
}
