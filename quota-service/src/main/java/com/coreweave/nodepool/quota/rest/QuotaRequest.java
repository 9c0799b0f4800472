package com.coreweave.nodepool.quota.rest;

import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;

/**
 * Reads an operator's quota request: the {@code <org>/<zone>/<instanceType>} of the path and the body
 * {@code {"maxNodes": n}}. No body or unreadable JSON is a 400 ({@link RequestBody}); readable JSON that is not such a
 * body, or a bad name, is a 422 with one cause per bad field ({@link FieldErrors}), as Kubernetes answers.
 */
final class QuotaRequest {

    static final String KIND = "Quota";
    /** Org ids are DNS labels; zones and instance types are names like US-EAST-04A and gd-8xa100-i128. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,251}[A-Za-z0-9])?");

    private QuotaRequest() {}

    static QuotaKey key(String org, String zone, String instanceType) {
        FieldErrors causes = new FieldErrors();
        checkName(causes, "org", org);
        checkName(causes, "zone", zone);
        checkName(causes, "instanceType", instanceType);
        if (!causes.isEmpty()) {
            throw ApiException.invalid(KIND, org + "/" + zone + "/" + instanceType, causes.list());
        }
        return new QuotaKey(org, zone, instanceType);
    }

    static int maxNodes(String body, QuotaKey key) {
        JsonNode json = RequestBody.tree(body, "{\"maxNodes\": <nodes>}");
        FieldErrors causes = new FieldErrors();
        if (!json.isObject()) {
            causes.add(INVALID, "the body must be a JSON object {\"maxNodes\": <nodes>}", null);
            throw ApiException.invalid(KIND, key.toString(), causes.list());
        }
        json.fieldNames().forEachRemaining(field -> {
            if (!"maxNodes".equals(field)) {
                causes.add(INVALID, "unknown field \"" + FieldErrors.shown(field) + "\"", FieldErrors.shown(field));
            }
        });
        JsonNode maxNodes = json.get("maxNodes");
        if (maxNodes == null || maxNodes.isNull()) {
            causes.add(REQUIRED, "Required value", "maxNodes");
        } else if (!maxNodes.isIntegralNumber() || !maxNodes.canConvertToInt() || maxNodes.intValue() < 0) {
            causes.add(
                    INVALID,
                    "Invalid value: " + FieldErrors.shown(maxNodes.toString()) + ": must be a whole number of "
                            + "at least 0",
                    "maxNodes");
        }
        if (!causes.isEmpty()) {
            throw ApiException.invalid(KIND, key.toString(), causes.list());
        }
        return maxNodes.intValue();
    }

    private static void checkName(FieldErrors causes, String field, String value) {
        if (value == null || !NAME.matcher(value).matches()) {
            causes.add(
                    INVALID,
                    "Invalid value: \"" + FieldErrors.shown(String.valueOf(value)) + "\": must be letters, "
                            + "digits, '.', '_' or '-', starting and ending with a letter or digit",
                    field);
        }
    }
}
