package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.type.TypeReference;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The data of a {@code WorkloadPending}, {@code WorkloadScheduled} or {@code WorkloadGone} CloudEvent on
 * {@code workload-pending}: pods a cluster's scheduler could not place, as it would publish them. {@code name} is the
 * workload's id within its org; {@code pods} run on nodes of one kind ({@code needs}); a {@code gang} runs all its pods
 * or none (Cluster Autoscaler's {@code atomic-scale-up}). {@code scheduled}, on a {@code WorkloadScheduled}, is how
 * many of the pods are placed: the rest still wait.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Workload(String org, String name, int pods, boolean gang, Needs needs, Integer scheduled) {

    public static final String PENDING = "WorkloadPending";
    public static final String SCHEDULED = "WorkloadScheduled";
    public static final String GONE = "WorkloadGone";

    public static final int MAX_PODS = 10_000;
    public static final int MAX_SELECTOR = 32;
    public static final int MAX_TOLERATIONS = 32;

    /** The whole CloudEvent as Jackson reads it. */
    public static final TypeReference<CloudEvent<Workload>> ENVELOPE = new TypeReference<>() {};

    /**
     * What each pod needs of a node: an instance type, or a GPU model and a number of its GPUs ({@code gpus}; 0 or
     * absent takes a whole node), the node labels it selects, the taints it tolerates, and a zone if it must run there.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Needs(
            String instanceType,
            String gpuModel,
            Integer gpus,
            Map<String, String> nodeSelector,
            List<Toleration> tolerations,
            String zone) {

        public Needs {
            nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
            tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
        }

        public int gpusPerPod() {
            return gpus == null ? 0 : gpus;
        }
    }

    /** A Kubernetes toleration: {@code Exists} tolerates any value of the key (any key when the key is absent). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Toleration(String key, String operator, String value, String effect) {

        public static final String EXISTS = "Exists";

        /** Whether this toleration lets a pod onto a node with {@code key=value:effect}. */
        public boolean tolerates(String taintKey, String taintValue, String taintEffect) {
            if (effect != null && !effect.isEmpty() && !effect.equals(taintEffect)) {
                return false;
            }
            if (key == null || key.isEmpty()) {
                return EXISTS.equals(operator);
            }
            if (!key.equals(taintKey)) {
                return false;
            }
            return EXISTS.equals(operator)
                    || Objects.equals(value == null ? "" : value, taintValue == null ? "" : taintValue);
        }
    }

    /** The pods still waiting to be placed. */
    public int pending() {
        return Math.max(0, pods - (scheduled == null ? 0 : scheduled));
    }
}
