package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.core.MediaType;

/** Reads a request body as a JSON tree, from JSON or YAML by its Content-Type; unreadable bodies are a 400. */
final class ManifestBody {

  private ManifestBody() {
  }

  static JsonNode parse(String body, MediaType type) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty; expected a NodePool manifest");
    }
    boolean yaml = type != null && type.getSubtype().toLowerCase().contains("yaml");
    try {
      JsonNode tree = (yaml ? Json.yaml() : Json.mapper()).readTree(body);
      if (tree == null || tree.isMissingNode()) {
        throw ApiException.badRequest("the request body is empty; expected a NodePool manifest");
      }
      return tree;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw ApiException.badRequest("the request body is not valid " + (yaml ? "YAML" : "JSON") + ": "
          + e.getOriginalMessage());
    }
  }
}
