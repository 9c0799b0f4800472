package com.coreweave.nodepool.schema.events;

import java.util.List;

/**
 * One entry of the instance-type catalogue (compacted {@code instance-type-catalogued}, keyed by name): what the
 * machine is and where it is offered. {@code superchip} types (GH200, GB200, GB300) cannot back spot pools.
 */
public record InstanceType(
        String name,
        String description,
        String gpuModel,
        int gpuCount,
        int cpuCores,
        int memoryGiB,
        boolean superchip,
        List<String> zones) {

    public boolean offeredIn(String zone) {
        return zones != null && zones.contains(zone);
    }
}
