package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One field manager's fields of an object ({@code metadata.managedFields[]}): who ({@code manager}), how
 * ({@code operation} Apply or Update), when, and the fields as Kubernetes' FieldsV1 set ({@code {"f:spec":
 * {"f:targetNodes": {}}}}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"})
public record ManagedFieldsEntry(
        String manager, String operation, String apiVersion, Instant time, String fieldsType, JsonNode fieldsV1) {

    public static final String APPLY = "Apply";
    public static final String UPDATE = "Update";
    public static final String FIELDS_V1 = "FieldsV1";
}
