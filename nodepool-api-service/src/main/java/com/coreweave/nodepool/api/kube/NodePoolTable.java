package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import com.jayway.jsonpath.spi.json.JacksonJsonNodeJsonProvider;
import com.jayway.jsonpath.spi.mapper.JacksonMappingProvider;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The NodePool table: Name, then the printer columns of the CustomResourceDefinition, each read from the pool by its
 * JSONPath the way the API server does for a custom resource (dates as ages, absent values empty).
 */
public final class NodePoolTable implements TableConvertor<NodePool> {

    private static final Configuration JSON_PATH = Configuration.builder()
            .jsonProvider(new JacksonJsonNodeJsonProvider(Json.mapper()))
            .mappingProvider(new JacksonMappingProvider(Json.mapper()))
            .options(Option.SUPPRESS_EXCEPTIONS, Option.ALWAYS_RETURN_LIST)
            .build();

    private final List<CustomResourceColumnDefinition> definitions = NodePoolDefinition.columns();
    private final List<JsonPath> paths = definitions.stream()
            .map(c -> JsonPath.compile("$" + c.getJsonPath()))
            .toList();

    @Override
    public List<Table.Column> columns() {
        List<Table.Column> columns = new ArrayList<>();
        columns.add(Table.Column.name("Name of the NodePool"));
        for (CustomResourceColumnDefinition c : definitions) {
            columns.add(new Table.Column(
                    c.getName(),
                    c.getType(),
                    c.getFormat() == null ? "" : c.getFormat(),
                    c.getDescription(),
                    c.getPriority() == null ? 0 : c.getPriority()));
        }
        return columns;
    }

    @Override
    public List<Object> cells(NodePool pool, Instant now) {
        JsonNode tree = Json.mapper().valueToTree(pool);
        List<Object> cells = new ArrayList<>();
        cells.add(pool.name());
        for (int i = 0; i < paths.size(); i++) {
            JsonNode found = paths.get(i).read(tree, JSON_PATH);
            JsonNode value = found == null || found.isEmpty() ? null : found.get(0);
            cells.add(cell(value, definitions.get(i).getType(), now));
        }
        return cells;
    }

    private static Object cell(JsonNode value, String type, Instant now) {
        if (value == null || value.isNull()) {
            return null;
        }
        return switch (type) {
            case "date" -> HumanDuration.of(Duration.between(Instant.parse(value.asText()), now));
            case "integer" -> value.asLong();
            case "boolean" -> value.asBoolean();
            default -> value.asText();
        };
    }
}
