package com.coreweave.nodepool.api.kube;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@code meta.k8s.io/v1} Table: what {@code kubectl get} asks for and prints. fabric8's model has no Table, so these
 * few records are the only Kubernetes types written here; every other one comes from fabric8.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "columnDefinitions", "rows"})
public record Table(
        String apiVersion, String kind, Map<String, String> metadata, List<Column> columnDefinitions, List<Row> rows)
        implements KubernetesResource {

    /** The media type parameters a client names to ask for a Table. */
    public static final String MEDIA_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

    public static Table of(String resourceVersion, String continueToken, List<Column> columns, List<Row> rows) {
        Map<String, String> metadata = new TreeMap<>();
        if (resourceVersion != null) {
            metadata.put("resourceVersion", resourceVersion);
        }
        if (continueToken != null) {
            metadata.put("continue", continueToken);
        }
        return new Table("meta.k8s.io/v1", "Table", metadata, columns, rows);
    }

    /** The same table without column definitions: a watch sends them with its first event only. */
    public Table withoutColumns() {
        return new Table(apiVersion, kind, metadata, null, rows);
    }

    /** A column; {@code priority} 0 is always shown, higher only with {@code -o wide}. */
    @JsonPropertyOrder({"name", "type", "format", "description", "priority"})
    public record Column(String name, String type, String format, String description, int priority) {

        public static Column name(String description) {
            return new Column("Name", "string", "name", description, 0);
        }
    }

    /** One object's cells, in column order, and the object itself (its metadata, unless the client asked for more). */
    @JsonPropertyOrder({"cells", "object"})
    public record Row(List<Object> cells, Object object) {}
}
