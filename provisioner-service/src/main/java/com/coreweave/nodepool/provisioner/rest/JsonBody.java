package com.coreweave.nodepool.provisioner.rest;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.databind.JsonNode;

/** The JSON body of an admin call; a body that is not JSON is a 400 Status saying why. */
final class JsonBody {

  private JsonBody() {
  }

  static JsonNode read(String body) {
    try {
      return Json.mapper().readTree(body == null ? "" : body);
    } catch (Exception e) {
      throw ApiException.badRequest("the body is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
  }
}
