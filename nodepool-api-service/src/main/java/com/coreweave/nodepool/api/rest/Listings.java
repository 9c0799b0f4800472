package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.FieldSelector;
import com.coreweave.nodepool.api.domain.LabelSelector;
import com.coreweave.nodepool.api.domain.Table;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The read side every resource shares, as the API server's generic handlers: selects a {@link Lister}'s objects by
 * label and field selectors, and answers with the JSON object or list, or with the Table the client asked for.
 */
@ApplicationScoped
class Listings {

  @Inject
  Clock clock;

  <T> List<T> select(Lister<T> lister, ListOptions options) {
    LabelSelector labels = options.labels();
    FieldSelector fields = options.fields(lister.selectableFields());
    return lister.objects(options).stream()
        .filter(item -> labels.test(lister.labels(item)) && fields.test(lister.fields(item)))
        .toList();
  }

  /** The selected objects as a list or a Table. */
  <T> Object list(Lister<T> lister, ListOptions options, String resourceVersion) {
    List<T> items = select(lister, options);
    return options.table() ? table(lister, items, options, resourceVersion) : lister.listOf(items, resourceVersion);
  }

  /** One object as itself, or as a Table of one row. */
  <T> Object one(Lister<T> lister, T item, ListOptions options) {
    return options.table() ? table(lister, List.of(item), options, null) : item;
  }

  <T> Table table(Lister<T> lister, List<T> items, ListOptions options, String resourceVersion) {
    Instant now = clock.instant();
    String include = options.includeObject();
    List<Table.Row> rows = items.stream()
        .map(item -> new Table.Row(lister.table().cells(item, now), switch (include) {
          case "Object" -> item;
          case "None" -> null;
          default -> Map.of("apiVersion", "meta.k8s.io/v1", "kind", "PartialObjectMetadata",
              "metadata", lister.metadata(item));
        }))
        .toList();
    return Table.of(resourceVersion, lister.table().columns(), rows);
  }
}
