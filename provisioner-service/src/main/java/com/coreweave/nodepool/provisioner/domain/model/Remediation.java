package com.coreweave.nodepool.provisioner.domain.model;

import java.time.Instant;

/**
 * What is being done about one node's health, and how far it got. A plan waits for the pool's repair budget, then its
 * node is cordoned (and tainted, for an alert) and drained; a reboot then reboots it and brings it back, while taking
 * it out of service (Replace, Triage) or a user's deletion prepares it for termination and removes it. With
 * {@code disableUnhealthyNodeEviction} an unhealthy node is only held: cordoned and tainted until its alerts end.
 */
public record Remediation(Plan plan, Step step, String why, Instant since, Instant deadline) {

    /** What the remediation ends with. */
    public enum Plan {
        /** Eviction is disabled for the pool: cordoned and tainted, never drained or removed. */
        Hold,
        /** A software component on the DPU restarts; the node stays in service. */
        Restart,
        Reboot,
        Replace,
        Triage,
        /** A user deleted the node. */
        Delete;

        public static Plan of(AlertAction action) {
            return switch (action) {
                case None -> null;
                case Restart -> Restart;
                case Reboot -> Reboot;
                case Replace -> Replace;
                case Triage -> Triage;
            };
        }

        /** Whether the node leaves the pool at the end. */
        public boolean removes() {
            return this == Replace || this == Triage || this == Delete;
        }

        /** Whether the node is in the repair budget while this runs: a user's deletion and a hold are not. */
        public boolean budgeted() {
            return this == Reboot || this == Replace || this == Triage;
        }
    }

    /** Where the remediation is. */
    public enum Step {
        Waiting,
        Held,
        /** A DPU component restarts, until the deadline; the node serves meanwhile. */
        Restarting,
        Draining,
        Rebooting,
        Terminating
    }

    public static Remediation waiting(Plan plan, String why, Instant now) {
        return new Remediation(plan, Step.Waiting, why, now, null);
    }

    public Remediation at(Step next, Instant until) {
        return new Remediation(plan, next, why, since, until);
    }

    public Remediation withPlan(Plan next, String because) {
        return new Remediation(next, step, because, since, deadline);
    }

    /** Whether the node is out for remediation: between its drain and its return or removal. */
    public boolean underway() {
        return step == Step.Draining || step == Step.Rebooting || step == Step.Terminating;
    }
}
