package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsonp.JSONPModule;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonStructure;

/**
 * JSON Patch (RFC 6902), as {@code PATCH} with {@code application/json-patch+json} ({@code kubectl patch
 * --type=json}) applies it, through the JSON-P implementation; a patch that cannot apply says why.
 */
public final class JsonPatch {

  private static final ObjectMapper MAPPER = Json.configure(new ObjectMapper()).registerModule(new JSONPModule());

  private JsonPatch() {
  }

  /** {@code target} with {@code operations} applied; {@link IllegalArgumentException} when they cannot be. */
  public static JsonNode apply(JsonNode target, JsonNode operations) {
    if (!operations.isArray()) {
      throw new IllegalArgumentException("a JSON patch must be a list of operations");
    }
    try {
      JsonArray patch = MAPPER.convertValue(operations, JsonArray.class);
      JsonStructure document = MAPPER.convertValue(target, JsonStructure.class);
      return MAPPER.valueToTree(jakarta.json.Json.createPatch(patch).apply(document));
    } catch (JsonException | IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
