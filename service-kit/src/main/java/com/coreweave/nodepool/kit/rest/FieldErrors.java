package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The field errors of one request as they are found, the one builder every validator of every service uses: the first
 * {@link Limits#MAX_CAUSES} are kept and the rest only counted, so a manifest with a million bad items costs neither a
 * million causes nor a megabyte answer.
 */
public final class FieldErrors {

    /** The most of a bad value a message shows: a megabyte value is not echoed back. */
    public static final int SHOWN_CHARS = 256;

    private final List<StatusCause> listed = new ArrayList<>();
    private int count;

    /** The causes of a list a Status holds, its "and N more" counted as the N it stands for. */
    public static FieldErrors of(List<StatusCause> causes) {
        FieldErrors collected = new FieldErrors();
        for (StatusCause cause : causes) {
            int standsFor = Statuses.standsFor(cause);
            if (standsFor == 1) {
                collected.add(cause);
            } else {
                collected.count += standsFor;
            }
        }
        return collected;
    }

    /**
     * Why {@code refused} was refused, in at most {@code maxBytes} of UTF-8 for a dead-letter header: an invalid
     * request's first causes and how many more, another refusal's message (a name and a sentence).
     */
    public static String reason(Status refused, int maxBytes) {
        StatusDetails details = refused.getDetails();
        if (!"Invalid".equals(refused.getReason()) || details == null || details.getCauses() == null) {
            return refused.getMessage();
        }
        return of(details.getCauses())
                .summary(details.getKind() + " \"" + details.getName() + "\" is invalid: ", maxBytes);
    }

    /** One field error alone, for a validator that finds at most one. */
    public static FieldErrors one(String reason, String message, String field) {
        FieldErrors errors = new FieldErrors();
        errors.add(reason, message, field);
        return errors;
    }

    /** These errors as the Status of an invalid {@code kind} named {@code name} (422), as Kubernetes answers one. */
    public Status invalid(String kind, String name) {
        return Statuses.invalid(kind, name, list());
    }

    /** These errors as the answer to a REST call: a 422 {@link #invalid} Status. */
    public ApiException refusal(String kind, String name) {
        return new ApiException(invalid(kind, name));
    }

    public void add(String reason, String message, String field) {
        add(Statuses.cause(reason, message, field));
    }

    public void add(StatusCause cause) {
        if (listed.size() < Limits.MAX_CAUSES) {
            listed.add(cause);
        }
        count++;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** How many causes were found, listed or not. */
    public int count() {
        return count;
    }

    /** The causes as a Status lists them: the first {@link Limits#MAX_CAUSES}, then one saying how many more. */
    public List<StatusCause> list() {
        List<StatusCause> all = new ArrayList<>(listed);
        if (count > listed.size()) {
            all.add(Statuses.omitted(count - listed.size()));
        }
        return List.copyOf(all);
    }

    /**
     * {@code prefix} and the causes, "field: message" one after another while they fit in {@code maxBytes} of UTF-8,
     * then how many are left out ("… (N more causes)"): what a dead-letter header can say about a refused request.
     */
    public String summary(String prefix, int maxBytes) {
        StringBuilder text = new StringBuilder(prefix);
        int bytes = utf8(prefix);
        // Room for the count at its longest is kept free until the last cause is in.
        int reserve = utf8(more(count));
        for (int i = 0; i < listed.size(); i++) {
            String part = (i == 0 ? "" : "; ") + describe(listed.get(i));
            int needed = utf8(part) + (i == count - 1 ? 0 : reserve);
            if (bytes + needed > maxBytes) {
                return text.append(more(count - i)).toString();
            }
            text.append(part);
            bytes += utf8(part);
        }
        return count > listed.size() ? text.append(more(count - listed.size())).toString() : text.toString();
    }

    /** At most {@value #SHOWN_CHARS} characters of what a caller sent, as a message echoes it back. */
    public static String shown(String text) {
        return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "…";
    }

    private static String describe(StatusCause cause) {
        String field = cause.getField();
        return field == null || field.isEmpty() ? cause.getMessage() : field + ": " + cause.getMessage();
    }

    private static String more(int causes) {
        return " … (" + causes + " more " + (causes == 1 ? "cause" : "causes") + ")";
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
