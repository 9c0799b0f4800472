package com.coreweave.nodepool.schema.resource;

import com.coreweave.nodepool.schema.Limits;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.api.model.StatusDetailsBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * Kubernetes {@code Status} objects (fabric8's type) as the API server words them: every error the services answer and
 * every refusal the pool processor decides, with one cause per bad field for invalid input.
 */
public final class Statuses {

    /** The cause reasons of a field error, as Kubernetes names them. */
    public static final String REQUIRED = "FieldValueRequired";

    public static final String INVALID = "FieldValueInvalid";
    public static final String NOT_SUPPORTED = "FieldValueNotSupported";
    public static final String FORBIDDEN = "FieldValueForbidden";
    public static final String TYPE_INVALID = "FieldValueTypeInvalid";
    public static final String TOO_LONG = "FieldValueTooLong";
    public static final String DUPLICATE = "FieldValueDuplicate";
    public static final String TOO_MANY = "FieldValueTooMany";
    /** The reason of the one cause that stands for those not listed ({@link #omitted}). */
    public static final String OMITTED = "CausesOmitted";

    private static final String GROUP = "compute.coreweave.com";

    private Statuses() {}

    public static Status failure(int code, String reason, String message, StatusDetails details) {
        return new StatusBuilder()
                .withApiVersion("v1")
                .withKind("Status")
                .withMetadata(new ListMeta())
                .withStatus("Failure")
                .withMessage(message)
                .withReason(reason)
                .withDetails(details)
                .withCode(code)
                .build();
    }

    public static Status success(String message) {
        return new StatusBuilder()
                .withApiVersion("v1")
                .withKind("Status")
                .withMetadata(new ListMeta())
                .withStatus("Success")
                .withMessage(message)
                .withCode(200)
                .build();
    }

    /** One bad field: {@code field} is a path such as {@code spec.targetNodes}, {@code reason} one of the above. */
    public static StatusCause cause(String reason, String message, String field) {
        return new StatusCause(field, message, reason);
    }

    public static StatusDetails details(String name, String group, String kind, List<StatusCause> causes) {
        return new StatusDetailsBuilder()
                .withName(name)
                .withGroup(group)
                .withKind(kind)
                .withCauses(causes == null || causes.isEmpty() ? null : bounded(causes))
                .build();
    }

    /** The cause in place of {@code count} causes not listed. */
    public static StatusCause omitted(int count) {
        return cause(OMITTED, "and " + count + " more", "");
    }

    /** How many causes {@code cause} stands for: those an {@link #omitted} cause counts, else itself. */
    public static int standsFor(StatusCause cause) {
        if (!OMITTED.equals(cause.getReason())) {
            return 1;
        }
        String message = cause.getMessage();
        return Integer.parseInt(message.substring("and ".length(), message.length() - " more".length()));
    }

    /**
     * At most {@link Limits#MAX_CAUSES} causes, then one saying how many more there are: an answer about a request with
     * a million bad items stays small. A list that is already so bounded (it ends in {@link #omitted}) is kept.
     */
    public static List<StatusCause> bounded(List<StatusCause> causes) {
        int size = causes.size();
        if (size <= Limits.MAX_CAUSES
                || (size == Limits.MAX_CAUSES + 1
                        && OMITTED.equals(causes.get(size - 1).getReason()))) {
            return causes;
        }
        List<StatusCause> listed = new ArrayList<>(causes.subList(0, Limits.MAX_CAUSES));
        listed.add(omitted(size - Limits.MAX_CAUSES));
        return listed;
    }

    public static Status badRequest(String message) {
        return failure(400, "BadRequest", message, null);
    }

    public static Status notFound(String kind, String name) {
        return failure(
                404,
                "NotFound",
                plural(kind) + "." + GROUP + " \"" + name + "\" not found",
                details(name, GROUP, plural(kind), null));
    }

    public static Status alreadyExists(String kind, String name) {
        return failure(
                409,
                "AlreadyExists",
                plural(kind) + "." + GROUP + " \"" + name + "\" already exists",
                details(name, GROUP, plural(kind), null));
    }

    public static Status conflict(String kind, String name, String why) {
        return failure(
                409,
                "Conflict",
                "Operation cannot be fulfilled on " + plural(kind) + "." + GROUP + " \"" + name + "\": " + why,
                details(name, GROUP, plural(kind), null));
    }

    /**
     * 422 with one cause per bad field (at most {@link Limits#MAX_CAUSES}), as Kubernetes answers an invalid object.
     */
    public static Status invalid(String kind, String name, List<StatusCause> causes) {
        String summary = String.join(
                ", ",
                bounded(causes).stream()
                        .map(c -> c.getField() == null || c.getField().isEmpty()
                                ? c.getMessage()
                                : c.getField() + ": " + c.getMessage())
                        .toList());
        return failure(
                422,
                "Invalid",
                kind + "." + GROUP + " \"" + (name == null ? "" : name) + "\" is invalid: " + summary,
                details(name, GROUP, kind, causes));
    }

    private static String plural(String kind) {
        return kind.toLowerCase() + "s";
    }
}
