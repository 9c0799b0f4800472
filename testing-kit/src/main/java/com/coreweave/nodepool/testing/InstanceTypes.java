package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.topics.Topics;
import java.util.List;

/**
 * The catalogue as tests publish it: the instance types the capacity-service lists on {@code instance-type-catalogued},
 * so a service under test knows them without the capacity-service.
 */
public final class InstanceTypes {

    private InstanceTypes() {}

    public static final String ZONE = "US-EAST-04A";

    /** The type most tests' pools ask for: eight A100s, reserved capacity, in {@link #ZONE}. */
    public static final InstanceType A100 =
            new InstanceType("gd-8xa100-i128", "8x A100", "A100", 8, 128, 2048, false, List.of(ZONE));

    /** A superchip type: one GH200, in {@link #ZONE}. */
    public static final InstanceType GH200 =
            new InstanceType("gd-1xgh200", "GH200", "GH200", 1, 72, 480, true, List.of(ZONE));

    /** Publishes {@code types} on the catalogue topic of a running broker, as the capacity-service does. */
    public static void publish(TopicProbe probe, InstanceType... types) {
        for (InstanceType type : types) {
            probe.sendJson(Topics.INSTANCE_TYPE_CATALOGUED.name(), type.name(), type);
        }
    }

    /** Pipes {@code types} into a topology's catalogue topic, as the capacity-service writes them. */
    public static void publish(StreamsDriver driver, InstanceType... types) {
        for (InstanceType type : types) {
            driver.pipeJson(Topics.INSTANCE_TYPE_CATALOGUED, type.name(), type);
        }
    }
}
