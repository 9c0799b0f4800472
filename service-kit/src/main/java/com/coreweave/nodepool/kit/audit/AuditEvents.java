package com.coreweave.nodepool.kit.audit;

import com.coreweave.nodepool.kit.audit.AuditEvent.ObjectRef;
import com.coreweave.nodepool.kit.audit.AuditEvent.ResponseStatus;
import com.coreweave.nodepool.kit.audit.AuditEvent.User;
import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import io.fabric8.kubernetes.api.model.Status;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds the {@link AuditEvent} of one write from what is known of it, without I/O: the verb and the object as the
 * Kubernetes API server names them from the HTTP method and path, the caller as user and groups, the answer.
 */
public final class AuditEvents {

    /** Our extras, as annotations of the event. */
    public static final String ANNOTATION_PREFIX = "nodepool.coreweave.com/";

    public static final String ORG = ANNOTATION_PREFIX + "org";
    public static final String SERVICE = ANNOTATION_PREFIX + "service";
    public static final String GENERATION = ANNOTATION_PREFIX + "generation";
    /** What a path names below a subresource, e.g. the node of {@code nodepools/p/nodes/n1}: "n1". */
    public static final String SUBRESOURCE_PATH = ANNOTATION_PREFIX + "subresource-path";
    /** The CloudEvent id of a request that came from a topic. */
    public static final String REQUEST_ID = ANNOTATION_PREFIX + "request-id";
    /** The CloudEvent source of a request that came from a topic: its writer's own word, kept beside the user. */
    public static final String CLOUDEVENT_SOURCE = ANNOTATION_PREFIX + "cloudevent-source";

    /** The group every caller of a known token is in, as Kubernetes'. */
    public static final String AUTHENTICATED = "system:authenticated";
    /** The group of an operator (an admin token). */
    public static final String ADMINS = "nodepool:admins";

    static final User ANONYMOUS = new User("system:anonymous", List.of("system:unauthenticated"));

    /** Kubernetes' RFC 3339 timestamps with microseconds, in UTC. */
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    /**
     * The operator APIs that are not Kubernetes-shaped, by resource (the first segment after {@code /admin}, if any):
     * how many segments after the resource are its namespace (the org) and how many its name. Any other resource has no
     * namespace and a one-segment name.
     */
    private static final Map<String, int[]> OPERATOR_SHAPES = Map.of(
            // /admin/quotas/{org}/{zone}/{instanceType}
            "quotas", new int[] {1, 2},
            // /admin/fleet/{zone}/{instanceType}[/machines[/{machine}]|/maintenance|/return|/reclaim-spot]
            "fleet", new int[] {0, 2});

    private AuditEvents() {}

    /** Whether a request of this HTTP method is a write, and so audited: reads (GET, HEAD, OPTIONS) are not. */
    public static boolean audited(String method) {
        return !("GET".equalsIgnoreCase(method)
                || "HEAD".equalsIgnoreCase(method)
                || "OPTIONS".equalsIgnoreCase(method));
    }

    /** One REST write as the HTTP layer saw it; {@code caller} is null when it was refused before authentication. */
    public record HttpWrite(
            String auditId,
            Caller caller,
            String method,
            String requestUri,
            int code,
            Status failure,
            Long generation,
            List<String> sourceIPs,
            String userAgent,
            Instant received,
            Instant completed,
            String service) {}

    /** The event of a REST write. */
    public static AuditEvent of(HttpWrite write) {
        String uri = write.requestUri();
        int query = uri.indexOf('?');
        Target target = target(query < 0 ? uri : uri.substring(0, query));
        Map<String, String> annotations = new TreeMap<>();
        if (write.caller() != null) {
            annotations.put(ORG, write.caller().org());
        }
        extras(annotations, write.service(), write.generation(), target.subresourcePath());
        return AuditEvent.completed(
                write.auditId(),
                uri,
                verb(write.method(), target.objectRef()),
                user(write.caller()),
                write.sourceIPs(),
                write.userAgent(),
                target.objectRef(),
                status(write.code(), write.failure()),
                timestamp(write.received()),
                timestamp(write.completed()),
                annotations);
    }

    /**
     * One pool request from a {@code nodepool-requested} topic, as it was decided. {@code user} is the Kafka principal
     * that could write it, {@code source} its CloudEvent source; either of {@code requestId}, {@code source} and
     * {@code operation} is null for a record refused before it could be read.
     */
    public record TopicWrite(
            String auditId,
            String requestId,
            String user,
            String source,
            String org,
            Operation operation,
            String pool,
            String record,
            int code,
            Status failure,
            Long generation,
            Instant received,
            Instant decided,
            String service) {}

    /** The event of a topic write: requestURI names the record ({@code kafka:<topic>/<partition>/<offset>}). */
    public static AuditEvent of(TopicWrite write) {
        Map<String, String> annotations = new TreeMap<>();
        annotations.put(ORG, write.org());
        if (write.requestId() != null) {
            annotations.put(REQUEST_ID, write.requestId());
        }
        if (write.source() != null) {
            annotations.put(CLOUDEVENT_SOURCE, write.source());
        }
        extras(annotations, write.service(), write.generation(), null);
        return AuditEvent.completed(
                write.auditId(),
                write.record(),
                verb(write.operation()),
                new User(write.user(), List.of(write.org())),
                null,
                null,
                new ObjectRef("nodepools", null, write.pool(), "compute.coreweave.com", "v1alpha1", null),
                status(write.code(), write.failure()),
                timestamp(write.received()),
                timestamp(write.decided()),
                annotations);
    }

    private static void extras(Map<String, String> annotations, String service, Long generation, String subPath) {
        if (service != null && !service.isEmpty()) {
            annotations.put(SERVICE, service);
        }
        if (generation != null) {
            annotations.put(GENERATION, generation.toString());
        }
        if (subPath != null) {
            annotations.put(SUBRESOURCE_PATH, subPath);
        }
    }

    /**
     * The caller as Kubernetes' user: its user name (the JWT's sub, the certificate's CN, a static token's user), in
     * its org's group, the admins' if it is an operator, and {@code system:authenticated}; {@code system:anonymous}
     * without a caller.
     */
    public static User user(Caller caller) {
        if (caller == null) {
            return ANONYMOUS;
        }
        List<String> groups =
                caller.admin() ? List.of(caller.org(), ADMINS, AUTHENTICATED) : List.of(caller.org(), AUTHENTICATED);
        return new User(caller.user().isBlank() ? caller.org() : caller.user(), groups);
    }

    /**
     * Kubernetes' verb of a write: POST create, PUT update, PATCH patch, DELETE delete (deletecollection without a
     * name); any other method in lower case, as Kubernetes names a non-resource request's.
     */
    public static String verb(String method, ObjectRef object) {
        return switch (method.toUpperCase(Locale.ROOT)) {
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> object != null && object.name() == null ? "deletecollection" : "delete";
            default -> method.toLowerCase(Locale.ROOT);
        };
    }

    /** The verb of a topic request: as its REST twin's (an apply is a server-side-apply patch). */
    public static String verb(Operation operation) {
        if (operation == null) {
            return null;
        }
        return switch (operation) {
            case CREATE -> "create";
            case REPLACE -> "update";
            case APPLY -> "patch";
            case DELETE -> "delete";
        };
    }

    /** The object a path names, and what it names below a subresource. */
    record Target(ObjectRef objectRef, String subresourcePath) {}

    /**
     * The object of a request path: {@code /apis/<group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<sub>...]]},
     * {@code /api/<version>/...} for the core group, and the operator APIs ({@code [/admin]/<resource>/...}, see
     * {@link #OPERATOR_SHAPES}).
     */
    static Target target(String path) {
        List<String> parts = segments(path);
        if (parts.isEmpty()) {
            return new Target(null, null);
        }
        String group = null;
        String version = null;
        int at;
        if (parts.get(0).equals("apis") && parts.size() >= 3) {
            group = parts.get(1);
            version = parts.get(2);
            at = 3;
        } else if (parts.get(0).equals("api") && parts.size() >= 2) {
            version = parts.get(1);
            at = 2;
        } else {
            return operator(parts);
        }
        String namespace = null;
        if (parts.size() - at >= 3 && parts.get(at).equals("namespaces")) {
            namespace = parts.get(at + 1);
            at += 2;
        }
        if (at >= parts.size()) {
            return new Target(null, null);
        }
        return rest(parts, at, group, version, namespace, 1);
    }

    private static Target operator(List<String> parts) {
        int at = parts.get(0).equals("admin") && parts.size() > 1 ? 1 : 0;
        int[] shape = OPERATOR_SHAPES.getOrDefault(parts.get(at), new int[] {0, 1});
        String namespace = null;
        if (shape[0] > 0 && parts.size() > at + 1) {
            namespace = parts.get(at + 1);
            parts = new ArrayList<>(parts);
            parts.remove(at + 1);
        }
        return rest(parts, at, null, null, namespace, shape[1]);
    }

    /** {@code parts[at]} is the resource, the next {@code nameLength} its name, then a subresource and its path. */
    private static Target rest(
            List<String> parts, int at, String group, String version, String namespace, int nameLength) {
        String resource = parts.get(at);
        int nameEnd = Math.min(parts.size(), at + 1 + nameLength);
        String name = nameEnd > at + 1 ? String.join("/", parts.subList(at + 1, nameEnd)) : null;
        String subresource = nameEnd == at + 1 + nameLength && parts.size() > nameEnd ? parts.get(nameEnd) : null;
        String subPath = subresource != null && parts.size() > nameEnd + 1
                ? String.join("/", parts.subList(nameEnd + 1, parts.size()))
                : null;
        return new Target(new ObjectRef(resource, namespace, name, group, version, subresource), subPath);
    }

    private static List<String> segments(String path) {
        List<String> parts = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                parts.add(URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return parts;
    }

    /** The answer: a refusal's Status gives its status, reason and message; a success only its code. */
    static ResponseStatus status(int code, Status failure) {
        if (failure == null || code < 400) {
            return new ResponseStatus(code, null, null, null);
        }
        return new ResponseStatus(code, "Failure", failure.getReason(), failure.getMessage());
    }

    static String timestamp(Instant at) {
        return at == null ? null : MICROS.format(at);
    }
}
