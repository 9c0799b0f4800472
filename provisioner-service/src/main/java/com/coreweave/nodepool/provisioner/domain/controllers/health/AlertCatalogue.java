package com.coreweave.nodepool.provisioner.domain.controllers.health;

import com.coreweave.nodepool.provisioner.domain.model.AlertAction;
import com.coreweave.nodepool.provisioner.domain.model.NodeHealth;
import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node-alert catalogue of reference 001 as data ({@code node-alerts.yaml} on the classpath): for each alert, the
 * node condition it sets while active and the action it calls for. An alert that is not listed is recorded under the
 * condition {@link #UNKNOWN_CONDITION} and never acted on.
 */
public final class AlertCatalogue {

    public static final String RESOURCE = "node-alerts.yaml";
    /** The condition an alert outside the catalogue is recorded under. */
    public static final String UNKNOWN_CONDITION = "UnknownAlert";

    /**
     * One alert: its name, its node condition, its action, what reference 001 says about it, whether 001 takes the node
     * out of service immediately ({@code immediate}: fatal hardware, drained at once whatever the budget, as a spot
     * reclaim is) and whether its workload is interrupted without its grace period ({@code interrupts}).
     */
    public record Entry(
            String alert,
            String condition,
            AlertAction action,
            String reference,
            boolean immediate,
            boolean interrupts) {

        public Entry(String alert, String condition, AlertAction action, String reference) {
            this(alert, condition, action, reference, false, false);
        }
    }

    private static volatile AlertCatalogue standard;

    private final Map<String, Entry> byName;

    public AlertCatalogue(List<Entry> entries) {
        Map<String, Entry> map = new LinkedHashMap<>();
        for (Entry entry : entries) {
            if (entry.alert() == null || entry.condition() == null || entry.action() == null) {
                throw new IllegalArgumentException(
                        "every catalogued alert needs a name, a condition and an action: " + entry);
            }
            if (map.put(entry.alert(), entry) != null) {
                throw new IllegalArgumentException("alert " + entry.alert() + " is catalogued twice");
            }
        }
        this.byName = Collections.unmodifiableMap(map);
    }

    /** The catalogue this service ships with, read once. */
    public static AlertCatalogue standard() {
        if (standard == null) {
            standard = fromResource(RESOURCE);
        }
        return standard;
    }

    static AlertCatalogue fromResource(String resource) {
        try (InputStream in = AlertCatalogue.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("node-alert catalogue " + resource + " is not on the classpath");
            }
            return new AlertCatalogue(Json.yaml().readValue(in, new TypeReference<List<Entry>>() {}));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot read the node-alert catalogue " + resource + ": " + e.getMessage(), e);
        }
    }

    public Optional<Entry> find(String alert) {
        return Optional.ofNullable(byName.get(alert));
    }

    /** The catalogued entry, or one that records the unknown alert and does nothing. */
    Entry entry(String alert) {
        return find(alert)
                .orElseGet(() -> new Entry(
                        alert,
                        UNKNOWN_CONDITION,
                        AlertAction.None,
                        "not in the node-alert catalogue: recorded, never acted on"));
    }

    /** Whether any of the alerts is fatal hardware that takes its node out of service at once. */
    boolean immediate(NodeHealth health) {
        return health.alerts().stream()
                .anyMatch(a -> find(a.name()).map(Entry::immediate).orElse(false));
    }

    /** Whether any of the alerts interrupts its node's workload without the grace period. */
    boolean interrupts(NodeHealth health) {
        return health.alerts().stream()
                .anyMatch(a -> find(a.name()).map(Entry::interrupts).orElse(false));
    }

    public Collection<Entry> entries() {
        return byName.values();
    }
}
