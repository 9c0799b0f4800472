package com.coreweave.nodepool.quota.rest;

import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads an operator's quota request: the {@code <org>/<zone>/<instanceType>} of the path and the body
 * {@code {"maxNodes": n}}. Unreadable JSON is a 400; readable JSON that is not such a body, or a bad name, is a 422
 * with one cause per bad field, as Kubernetes answers.
 */
final class QuotaRequest {

  static final String KIND = "Quota";
  /** Org ids are DNS labels; zones and instance types are names like US-EAST-04A and gd-8xa100-i128. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,251}[A-Za-z0-9])?");

  private QuotaRequest() {
  }

  static QuotaKey key(String org, String zone, String instanceType) {
    List<StatusCause> causes = new ArrayList<>();
    checkName(causes, "org", org);
    checkName(causes, "zone", zone);
    checkName(causes, "instanceType", instanceType);
    if (!causes.isEmpty()) {
      throw ApiException.invalid(KIND, org + "/" + zone + "/" + instanceType, causes);
    }
    return new QuotaKey(org, zone, instanceType);
  }

  static int maxNodes(String body, QuotaKey key) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("a body {\"maxNodes\": <nodes>} is required");
    }
    JsonNode json;
    try {
      json = Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("request body is not valid JSON: " + e.getOriginalMessage());
    }
    if (!json.isObject()) {
      throw ApiException.invalid(KIND, key.toString(), List.of(Statuses.cause(INVALID,
          "the body must be a JSON object {\"maxNodes\": <nodes>}", null)));
    }
    List<StatusCause> causes = new ArrayList<>();
    json.fieldNames().forEachRemaining(field -> {
      if (!"maxNodes".equals(field)) {
        causes.add(Statuses.cause(INVALID, "unknown field \"" + field + "\"", field));
      }
    });
    JsonNode maxNodes = json.get("maxNodes");
    if (maxNodes == null || maxNodes.isNull()) {
      causes.add(Statuses.cause(REQUIRED, "Required value", "maxNodes"));
    } else if (!maxNodes.isIntegralNumber() || !maxNodes.canConvertToInt() || maxNodes.intValue() < 0) {
      causes.add(Statuses.cause(INVALID, "Invalid value: " + maxNodes + ": must be a whole number of at "
          + "least 0", "maxNodes"));
    }
    if (!causes.isEmpty()) {
      throw ApiException.invalid(KIND, key.toString(), causes);
    }
    return maxNodes.intValue();
  }

  private static void checkName(List<StatusCause> causes, String field, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      causes.add(Statuses.cause(INVALID, "Invalid value: \"" + value + "\": must be letters, digits, '.', "
          + "'_' or '-', starting and ending with a letter or digit", field));
    }
  }
}
