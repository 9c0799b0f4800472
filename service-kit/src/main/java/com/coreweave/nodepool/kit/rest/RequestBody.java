package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.core.MediaType;

/**
 * The one reader of REST request bodies: JSON, or YAML when the Content-Type says so, as a tree or a bound value. Each
 * way a body can be unusable is a 400 with one wording in every service:
 *
 * <ul>
 *   <li>missing: {@code the request body is empty; expected <what>}
 *   <li>malformed: {@code the request body is not valid JSON: <parser's first line>} (or YAML)
 *   <li>wrong type: {@code the request body is not <what>[: <binder's first line>]}
 * </ul>
 *
 * Its size is already bounded by {@link RequestBodyLimit}, its nesting by the parser's constraints ({@link Json}).
 */
public final class RequestBody {

    private RequestBody() {}

    /** A JSON body as a tree; {@code expected} names what it should be ("a NodePool manifest"). */
    public static JsonNode tree(String body, String expected) {
        return tree(body, MediaType.APPLICATION_JSON_TYPE, expected);
    }

    /** A body as a tree, read as YAML when {@code type} is a YAML type and as JSON otherwise. */
    public static JsonNode tree(String body, MediaType type, String expected) {
        if (body == null || body.isBlank()) {
            throw missing(expected);
        }
        boolean yaml = type != null && type.getSubtype().toLowerCase().contains("yaml");
        JsonNode tree;
        try {
            tree = (yaml ? Json.yaml() : Json.mapper()).readTree(body);
        } catch (JsonProcessingException e) {
            throw malformed(yaml ? "YAML" : "JSON", e);
        }
        if (tree == null || tree.isMissingNode()) {
            throw missing(expected);
        }
        return tree;
    }

    /** A JSON body that must be an object. */
    public static JsonNode object(String body, String expected) {
        JsonNode tree = tree(body, expected);
        if (!tree.isObject()) {
            throw wrongType(expected, null);
        }
        return tree;
    }

    /** A JSON body bound to {@code type}; one that does not bind, or binds to nothing (null), is the wrong type. */
    public static <T> T value(String body, Class<T> type, String expected) {
        T value = bind(tree(body, expected), type, expected);
        if (value == null) {
            throw wrongType(expected, null);
        }
        return value;
    }

    /** A tree read from a body (and perhaps patched since) bound to {@code type}. */
    public static <T> T bind(JsonNode tree, Class<T> type, String expected) {
        try {
            return Json.mapper().treeToValue(tree, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String why = e instanceof JsonProcessingException p ? p.getOriginalMessage() : e.getMessage();
            throw wrongType(expected, firstLine(why));
        }
    }

    /** The 400 of a body the parser could not read as {@code format}; also what a body bound by RESTEasy gets. */
    static ApiException malformed(String format, JsonProcessingException e) {
        return ApiException.badRequest(
                "the request body is not valid " + format + ": " + firstLine(e.getOriginalMessage()));
    }

    private static ApiException missing(String expected) {
        return ApiException.badRequest("the request body is empty; expected " + expected);
    }

    private static ApiException wrongType(String expected, String why) {
        return ApiException.badRequest("the request body is not " + expected + (why == null ? "" : ": " + why));
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
