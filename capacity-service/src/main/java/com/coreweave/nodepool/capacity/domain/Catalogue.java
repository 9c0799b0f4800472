package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The instance-type catalogue as data: which types exist and where each is offered. Fleets and demand are accepted only
 * for a type in a zone it is offered in.
 */
public final class Catalogue {

    private final Map<String, InstanceType> types;

    public Catalogue(List<InstanceType> types) {
        Map<String, InstanceType> byName = new LinkedHashMap<>();
        for (InstanceType type : types) {
            if (type.name() == null
                    || type.name().isBlank()
                    || type.zones() == null
                    || type.zones().isEmpty()) {
                throw new IllegalArgumentException("every instance type needs a name and at least one zone: " + type);
            }
            if (byName.put(type.name(), type) != null) {
                throw new IllegalArgumentException("instance type " + type.name() + " is listed twice");
            }
        }
        this.types = Collections.unmodifiableMap(byName);
    }

    /** Reads the catalogue from a YAML list on the classpath. */
    public static Catalogue fromResource(String resource) {
        try (InputStream in = Catalogue.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("instance-type catalogue " + resource + " is not on the classpath");
            }
            return new Catalogue(Json.yaml().readValue(in, new TypeReference<List<InstanceType>>() {}));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot read the instance-type catalogue " + resource + ": " + e.getMessage(), e);
        }
    }

    public List<InstanceType> all() {
        return new ArrayList<>(types.values());
    }

    public Optional<InstanceType> find(String name) {
        return Optional.ofNullable(name == null ? null : types.get(name));
    }

    /** Why {@code instanceType} cannot have a fleet in {@code zone}, or empty when it can. */
    public Optional<String> refusal(String zone, String instanceType) {
        InstanceType type = types.get(instanceType);
        if (type == null) {
            return Optional.of("instance type " + instanceType + " is not in the catalogue");
        }
        if (!type.offeredIn(zone)) {
            return Optional.of("instance type " + instanceType + " is not offered in zone " + zone + " (offered in "
                    + String.join(", ", type.zones()) + ")");
        }
        return Optional.empty();
    }
}
