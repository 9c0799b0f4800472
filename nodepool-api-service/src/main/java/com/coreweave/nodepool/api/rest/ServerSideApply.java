package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.FieldOwnership;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;

/**
 * Keeps {@code metadata.managedFields} on every write ({@link FieldOwnership}): an apply merges its configuration
 * into the stored pool by field ownership, any other write takes over the fields it changes. An apply's conflict
 * answers 409 with one {@code FieldManagerConflict} cause per field, as the API server does.
 */
@ApplicationScoped
class ServerSideApply {

  @Inject
  Clock clock;

  /** {@code next} as {@code manager} writes it over {@code current} (null for a create), its managers recorded. */
  NodePool recordUpdate(NodePool current, NodePool next, String manager) {
    var entries = FieldOwnership.update(current == null ? null : Json.mapper().valueToTree(current),
        current == null ? null : current.metadata().managedFields(), Json.mapper().valueToTree(next), manager,
        clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    return next.withMetadata(next.metadata().withManagedFields(entries));
  }

  /** The manifest an apply of {@code config} makes of {@code current} (null when it does not exist yet). */
  JsonNode apply(NodePool current, JsonNode config, String manager, boolean force) {
    ObjectNode live = current == null ? null : Json.mapper().valueToTree(current.withStatus(null));
    try {
      FieldOwnership.Applied applied = FieldOwnership.apply(live,
          current == null ? null : current.metadata().managedFields(), config, manager, force,
          clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
      ObjectNode object = (ObjectNode) applied.object();
      ((ObjectNode) object.with("metadata")).set("managedFields", Json.mapper().valueToTree(applied.managedFields()));
      if (current != null) {
        ((ObjectNode) object.get("metadata")).put("resourceVersion", current.metadata().resourceVersion());
      }
      return object;
    } catch (FieldOwnership.Conflicts e) {
      String name = config.path("metadata").path("name").asText();
      List<StatusCause> causes = e.conflicts().stream()
          .map(c -> Statuses.cause("FieldManagerConflict", c.message(), c.field())).toList();
      throw new ApiException(Statuses.failure(409, "Conflict", e.getMessage(),
          Statuses.details(name, "compute.coreweave.com", "nodepools", causes)));
    }
  }
}
