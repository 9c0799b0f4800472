package com.coreweave.nodepool.api.kube;

import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The columns of {@code kubectl get events}, as the API server prints core Events. */
public final class EventTable implements TableConvertor<Event> {

    @Override
    public List<Table.Column> columns() {
        return List.of(
                new Table.Column("Last Seen", "string", "", "Time since the event was last seen", 0),
                new Table.Column("Type", "string", "", "Normal or Warning", 0),
                new Table.Column("Reason", "string", "", "Why the event happened, in one word", 0),
                new Table.Column("Object", "string", "", "The object the event is about", 0),
                new Table.Column("Subobject", "string", "", "The part of the object the event is about", 1),
                new Table.Column("Source", "string", "", "The component that reported the event", 1),
                new Table.Column("Message", "string", "", "What happened", 0),
                new Table.Column("First Seen", "string", "", "Time since the event was first seen", 1),
                new Table.Column("Count", "integer", "", "How often the event was seen", 1),
                new Table.Column("Name", "string", "", "Name of the Event", 1));
    }

    @Override
    public List<Object> cells(Event event, Instant now) {
        var about = event.getInvolvedObject();
        List<Object> cells = new ArrayList<>();
        cells.add(age(event.getLastTimestamp(), now));
        cells.add(event.getType());
        cells.add(event.getReason());
        cells.add(about.getKind().toLowerCase() + "/" + about.getName());
        cells.add("");
        cells.add(event.getSource().getComponent());
        cells.add(event.getMessage());
        cells.add(age(event.getFirstTimestamp(), now));
        cells.add(event.getCount());
        cells.add(event.getMetadata().getName());
        return cells;
    }

    private static String age(String timestamp, Instant now) {
        return timestamp == null ? "<unknown>" : HumanDuration.of(Duration.between(Instant.parse(timestamp), now));
    }
}
