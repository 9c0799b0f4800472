package com.coreweave.nodepool.provisioner.domain.model;

import java.time.Instant;
import java.util.List;

/**
 * One node's health as the provisioner keeps it: the alerts active on it (oldest first), when its alerts were raised
 * recently (within the flap window, to tell a flapping alert), and the remediation under way (null when none).
 */
public record NodeHealth(List<Alert> alerts, List<Raise> raises, Remediation remediation) {

    /** An active alert: its catalogue condition and the action it calls for (escalated when it flaps). */
    public record Alert(String name, String condition, AlertAction action, String details, Instant since) {}

    /** An alert raised at a time. */
    public record Raise(String alert, Instant at) {}

    public NodeHealth {
        alerts = alerts == null ? List.of() : List.copyOf(alerts);
        raises = raises == null ? List.of() : List.copyOf(raises);
    }

    public static final NodeHealth NONE = new NodeHealth(List.of(), List.of(), null);

    /** The strongest action the active alerts call for. */
    public AlertAction action() {
        return alerts.stream().map(Alert::action).reduce(AlertAction.None, AlertAction::strongest);
    }

    public NodeHealth withAlerts(List<Alert> next) {
        return new NodeHealth(next, raises, remediation);
    }

    public NodeHealth withRaises(List<Raise> next) {
        return new NodeHealth(alerts, next, remediation);
    }

    public NodeHealth withRemediation(Remediation next) {
        return new NodeHealth(alerts, raises, next);
    }
}
