package com.coreweave.nodepool.systemtest.bench;

import java.time.Duration;
import java.util.Collection;

/**
 * What a measured stretch of work cost for each item it handled (a pool, or a record of the baseline): CPU seconds of
 * chosen processes, and offsets and bytes written to the broker, from when it began until the broker was quiet after it
 * (the last events and statuses come shortly after TargetMet).
 */
record PhaseCost(int items, CpuMeter.Usage cpu, BrokerWrites.Delta written) {

    private static final Duration QUIET_AT_MOST = Duration.ofSeconds(15);

    /** Starts measuring now. */
    static Meter start(String name, BrokerWrites broker) {
        return new Meter(name, broker, broker.snapshot(), CpuMeter.snapshot());
    }

    /** A measurement under way. */
    record Meter(String name, BrokerWrites broker, BrokerWrites.Snapshot writtenBefore, CpuMeter.Snapshot cpuBefore) {

        /** Waits until the broker is quiet (at most 15 s) and ends the measurement there. */
        PhaseCost stop(int items) throws InterruptedException {
            BrokerWrites.Snapshot writtenAfter = broker.afterQuiet(QUIET_AT_MOST);
            CpuMeter.Usage cpu = CpuMeter.between(name, cpuBefore, CpuMeter.snapshot());
            return new PhaseCost(items, cpu, BrokerWrites.between(writtenBefore, writtenAfter));
        }
    }

    /** Milliseconds of CPU per item used by these components together. */
    double cpuMillisPerItem(Collection<String> components) {
        return 1000 * cpu.of(components) / items;
    }

    /** Milliseconds of busy CPU of the whole machine per item (everything that ran, other people's work too). */
    double machineMillisPerItem() {
        return 1000 * cpu.machineBusy() / items;
    }

    double offsetsPerItem() {
        return (double) written.offsets() / items;
    }

    double bytesPerItem() {
        return (double) written.bytes() / items;
    }
}
