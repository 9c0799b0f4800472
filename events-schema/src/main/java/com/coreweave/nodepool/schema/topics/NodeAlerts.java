package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How {@code node-alert-raised} is read (DESIGN.md §3 "Node alerts"): a {@code NodeAlertRaised} or
 * {@code NodeAlertResolved} CloudEvent in structured JSON mode whose {@code subject} is the record key, its
 * {@code data} naming the node and the alert, and optionally what monitoring saw ({@code details}). An alert name
 * outside the catalogue is read all the same: the provisioner records it and never acts on it.
 */
final class NodeAlerts {

    private NodeAlerts() {}

    /** An alert name as monitoring rules name them: it becomes a node condition's reason and a taint's value. */
    private static final Pattern ALERT_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,62}");

    private static final int MAX_DETAILS = 1024;

    static final ValueFormat<CloudEvent<NodeAlert>> FORMAT =
            new ValueFormat<>("CloudEvent NodeAlertRaised", NodeAlerts::decode);

    static final RecordCheck<PoolKey, CloudEvent<NodeAlert>> CHECK = NodePoolRequests::requireSubject;

    private static CloudEvent<NodeAlert> decode(byte[] value) {
        CloudEvent<JsonNode> event = NodePoolRequests.envelope(value, Set.of(NodeAlert.RAISED, NodeAlert.RESOLVED));
        JsonNode data = event.data();
        if (data == null || !data.isObject()) {
            throw invalid("data must be an object {node, alert, details}");
        }
        String node = text(data, "node");
        RecordChecks.nodeName(node);
        String alert = text(data, "alert");
        if (alert == null || !ALERT_NAME.matcher(alert).matches()) {
            throw invalid("data.alert must be an alert name (a letter, then letters, digits, '_', '.' or '-', at most "
                    + "63), was " + data.get("alert"));
        }
        JsonNode details = data.get("details");
        if (details != null
                && !details.isNull()
                && (!details.isTextual() || details.textValue().length() > MAX_DETAILS)) {
            throw invalid("data.details must be a string of at most " + MAX_DETAILS + " characters");
        }
        return event.withData(
                new NodeAlert(node, alert, details == null || details.isNull() ? null : details.textValue()));
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? value.textValue() : null;
    }

    private static Rejection invalid(String reason) {
        return new Rejection(Code.INVALID_RECORD, reason);
    }
}
