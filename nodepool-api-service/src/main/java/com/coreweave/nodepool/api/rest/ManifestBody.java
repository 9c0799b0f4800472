package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.ManifestValidator.FieldValidation;
import com.coreweave.nodepool.api.domain.ManifestValidator;
import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * Reads a request body as a JSON tree, from JSON or YAML by its Content-Type (unreadable bodies are a 400), and turns
 * a manifest tree into the NodePool to write (structural errors are a 422).
 */
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

  /** The manifest, structurally valid, named as the path says (when the path names it). */
  static ManifestValidator.Checked checked(JsonNode manifest, String pathName, FieldValidation mode) {
    OrgLabel.strip(manifest);
    ManifestValidator.Checked checked = ManifestValidator.check(manifest, mode);
    String name = manifest.path("metadata").path("name").asText(null);
    if (!checked.causes().isEmpty()) {
      throw ApiException.invalid(NodePool.KIND, name == null ? pathName : name, checked.causes());
    }
    if (pathName != null && !pathName.equals(name)) {
      throw ApiException.badRequest("metadata.name \"" + name + "\" does not match the name in the path \""
          + pathName + "\"");
    }
    return checked;
  }

  static NodePool bind(JsonNode manifest) {
    try {
      return Json.mapper().treeToValue(manifest, NodePool.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw ApiException.badRequest("the manifest cannot be read: " + e.getOriginalMessage());
    }
  }

  /** The user-writable part of a stored pool, as a patch applies to it. */
  static JsonNode writable(NodePool current) {
    ObjectNode tree = Json.mapper().valueToTree(current.withStatus(null));
    ObjectNode meta = (ObjectNode) tree.get("metadata");
    meta.remove(List.of("uid", "generation", "creationTimestamp", "deletionTimestamp", "managedFields"));
    return tree;
  }
}
