package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Set;

/**
 * Which kind a record of a polymorphic JSON value is, read from its top-level type property without parsing the rest
 * (the writer puts that property first, so this reads a few tokens). Lets a service skip, unparsed, the kinds it never
 * uses; anything it cannot tell is kept, so the full read still refuses it with a reason.
 */
final class KindPeek {

    private final String property;
    private final Set<String> kinds;

    KindPeek(String property, Set<String> kinds) {
        this.property = property;
        this.kinds = Set.copyOf(kinds);
    }

    /** False only for a JSON object whose {@code property} is a string naming none of the kinds. */
    boolean wanted(byte[] value) {
        if (value == null) {
            return true;
        }
        try (JsonParser parser = Json.mapper().getFactory().createParser(value)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return true;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                boolean kind = property.equals(parser.currentName());
                JsonToken next = parser.nextToken();
                if (kind) {
                    return next != JsonToken.VALUE_STRING || kinds.contains(parser.getText());
                }
                parser.skipChildren();
            }
            return true;
        } catch (IOException e) {
            return true;
        }
    }
}
