package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * JSON Patch (RFC 6902), as {@code PATCH} with {@code application/json-patch+json} ({@code kubectl patch --type=json})
 * applies it: {@code add}, {@code remove}, {@code replace}, {@code move}, {@code copy} and {@code test} over JSON
 * Pointers (RFC 6901). All operations apply or none does; one that cannot says why.
 *
 * <p>A patch cannot make a document grow faster than its own size, as Kubernetes bounds it: at most
 * {@link Limits#MAX_JSON_PATCH_OPERATIONS} operations, at most {@link Limits#MAX_JSON_PATCH_COPIED_BYTES} copied or
 * moved in total (measured as JSON, evanphx/json-patch's AccumulatedCopySizeLimit), and no {@code copy} or {@code move}
 * into the value it takes from: 31 operations copying a map into itself doubled it 30 times.
 */
public final class JsonPatch {

    private JsonPatch() {}

    /** {@code target} with {@code operations} applied; {@link IllegalArgumentException} when they cannot be. */
    public static JsonNode apply(JsonNode target, JsonNode operations) {
        if (!operations.isArray()) {
            throw new IllegalArgumentException("a JSON patch must be a list of operations");
        }
        if (operations.size() > Limits.MAX_JSON_PATCH_OPERATIONS) {
            throw new IllegalArgumentException("a JSON patch may have at most " + Limits.MAX_JSON_PATCH_OPERATIONS
                    + " operations, this one has " + operations.size());
        }
        Patching patching = new Patching(target.deepCopy());
        for (int i = 0; i < operations.size(); i++) {
            try {
                patching.apply(operations.get(i));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "operation " + i + " " + describe(operations.get(i)) + ": " + e.getMessage(), e);
            }
        }
        return patching.document;
    }

    /** The document being patched, and what the patch has copied so far. */
    private static final class Patching {
        private JsonNode document;
        private long copied;

        Patching(JsonNode document) {
            this.document = document;
        }

        void apply(JsonNode operation) {
            if (!operation.isObject()) {
                throw new IllegalArgumentException("an operation must be an object");
            }
            Pointer path = Pointer.parse(member(operation, "path"));
            switch (member(operation, "op")) {
                case "add" -> add(path, value(operation));
                case "remove" -> remove(path);
                case "replace" -> replace(path, value(operation));
                case "move" -> {
                    Pointer from = Pointer.parse(member(operation, "from"));
                    if (from.equals(path)) {
                        existing(from);
                        return;
                    }
                    JsonNode moved = taken(from, path);
                    remove(from);
                    add(path, moved);
                }
                case "copy" -> {
                    Pointer from = Pointer.parse(member(operation, "from"));
                    add(path, taken(from, path).deepCopy());
                }
                case "test" -> {
                    JsonNode expected = value(operation);
                    if (!existing(path).equals(NUMBERS_BY_VALUE, expected)) {
                        throw new IllegalArgumentException(
                                "the value at " + path + " is not " + shown(expected.toString()));
                    }
                }
                default ->
                    throw new IllegalArgumentException(
                            "\"op\" must be one of add, remove, replace, move, copy, " + "test");
            }
        }

        /** The value at {@code from} that a copy or move puts at {@code path}, counted against what may be copied. */
        private JsonNode taken(Pointer from, Pointer path) {
            JsonNode value = existing(from);
            if (from.isAncestorOf(path)) {
                throw new IllegalArgumentException("\"path\" " + path + " is inside \"from\" " + from
                        + ": a value cannot be copied or moved into itself");
            }
            long budget = Limits.MAX_JSON_PATCH_COPIED_BYTES - copied;
            copied += JsonSize.of(value, budget);
            if (copied > Limits.MAX_JSON_PATCH_COPIED_BYTES) {
                throw new IllegalArgumentException("a JSON patch may copy or move at most "
                        + Limits.MAX_JSON_PATCH_COPIED_BYTES + " bytes of JSON in total");
            }
            return value;
        }

        private void add(Pointer path, JsonNode value) {
            if (path.isRoot()) {
                document = value;
                return;
            }
            JsonNode parent = parent(path);
            String token = path.last();
            if (parent instanceof ObjectNode object) {
                object.set(token, value);
            } else if (parent instanceof ArrayNode array) {
                if (token.equals("-")) {
                    array.add(value);
                } else {
                    array.insert(index(token, array.size() + 1, path), value);
                }
            } else {
                throw new IllegalArgumentException("no object or list at " + path.parent() + " to add " + path + " to");
            }
        }

        /** Replaces the value at {@code path} where it is, so that a member keeps its place among the others. */
        private void replace(Pointer path, JsonNode value) {
            existing(path);
            if (path.isRoot()) {
                document = value;
                return;
            }
            JsonNode parent = parent(path);
            if (parent instanceof ObjectNode object) {
                object.set(path.last(), value);
            } else {
                ((ArrayNode) parent).set(index(path.last(), parent.size(), path), value);
            }
        }

        private void remove(Pointer path) {
            if (path.isRoot()) {
                throw new IllegalArgumentException("the whole document cannot be removed");
            }
            existing(path);
            JsonNode parent = parent(path);
            if (parent instanceof ObjectNode object) {
                object.remove(path.last());
            } else {
                ((ArrayNode) parent).remove(index(path.last(), parent.size(), path));
            }
        }

        /** The value at {@code path}; a path that names no value is an error. */
        private JsonNode existing(Pointer path) {
            JsonNode node = document;
            for (int i = 0; i < path.tokens().size(); i++) {
                node = child(node, path.tokens().get(i));
                if (node == null) {
                    throw new IllegalArgumentException("no value at " + path);
                }
            }
            return node;
        }

        private JsonNode parent(Pointer path) {
            JsonNode node = document;
            List<String> tokens = path.tokens();
            for (int i = 0; i < tokens.size() - 1; i++) {
                node = child(node, tokens.get(i));
                if (node == null) {
                    throw new IllegalArgumentException("no value at " + path.parent());
                }
            }
            return node;
        }
    }

    /** RFC 6902's equality: numbers are equal when their values are, whatever their JSON form (1, 1.0, 1e0). */
    private static final Comparator<JsonNode> NUMBERS_BY_VALUE = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    private static JsonNode child(JsonNode node, String token) {
        if (node instanceof ObjectNode) {
            return node.get(token);
        }
        if (node instanceof ArrayNode && isIndex(token)) {
            int index = Integer.parseInt(token);
            return index < node.size() ? node.get(index) : null;
        }
        return null;
    }

    /** An array index of RFC 6901: digits without a leading zero, small enough to be one. */
    private static boolean isIndex(String token) {
        return token.matches("0|[1-9][0-9]{0,8}");
    }

    private static int index(String token, int bound, Pointer path) {
        if (!isIndex(token) || Integer.parseInt(token) >= bound) {
            throw new IllegalArgumentException("no list index " + token + " at " + path);
        }
        return Integer.parseInt(token);
    }

    private static String member(JsonNode operation, String name) {
        JsonNode member = operation.get(name);
        if (member == null || !member.isTextual()) {
            throw new IllegalArgumentException("\"" + name + "\" is required and must be a string");
        }
        return member.textValue();
    }

    private static JsonNode value(JsonNode operation) {
        if (!operation.has("value")) {
            throw new IllegalArgumentException("\"value\" is required");
        }
        return operation.get("value");
    }

    /** An operation as an error names it: its op and paths, never its value. */
    private static String describe(JsonNode operation) {
        if (!operation.isObject()) {
            return "";
        }
        String op = operation.path("op").asText("");
        String from = operation.path("from").isTextual()
                ? " from " + pointer(operation.get("from").textValue())
                : "";
        String path = operation.path("path").isTextual()
                ? " " + pointer(operation.get("path").textValue())
                : "";
        return "(" + shown(op) + from + path + ")";
    }

    private static String pointer(String text) {
        return text.isEmpty() ? "\"\"" : shown(text);
    }

    private static String shown(String text) {
        return FieldErrors.shown(text);
    }

    /** A JSON Pointer (RFC 6901): "" is the whole document, "/a~1b/0" the member "a/b", then its first item. */
    private record Pointer(String text, List<String> tokens) {

        static Pointer parse(String text) {
            if (text.isEmpty()) {
                return new Pointer(text, List.of());
            }
            if (text.charAt(0) != '/') {
                throw new IllegalArgumentException(
                        "\"" + shown(text) + "\" is not a JSON pointer: it must be empty or " + "start with /");
            }
            List<String> tokens = new ArrayList<>();
            for (String token : text.substring(1).split("/", -1)) {
                if (token.replace("~0", "").replace("~1", "").contains("~")) {
                    throw new IllegalArgumentException(
                            "\"" + shown(text) + "\" is not a JSON pointer: ~ must be followed " + "by 0 or 1");
                }
                tokens.add(token.replace("~1", "/").replace("~0", "~"));
            }
            return new Pointer(text, List.copyOf(tokens));
        }

        boolean isRoot() {
            return tokens.isEmpty();
        }

        String last() {
            return tokens.get(tokens.size() - 1);
        }

        Pointer parent() {
            return new Pointer(text.substring(0, text.lastIndexOf('/')), tokens.subList(0, tokens.size() - 1));
        }

        /** Whether {@code other} lies strictly inside the value this one points at. */
        boolean isAncestorOf(Pointer other) {
            return other.tokens.size() > tokens.size()
                    && other.tokens.subList(0, tokens.size()).equals(tokens);
        }

        @Override
        public String toString() {
            return pointer(text);
        }
    }
}
