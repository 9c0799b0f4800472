package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.SpotZones;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The rules of a pool spec that need the platform's knowledge or span several fields, reported the way the reference
 * does: asynchronously, as the {@code Validated} condition and its events. An invalid pool gets no nodes.
 */
public final class PlatformValidator {

    public static final String VALID_MESSAGE = "NodePool configuration is valid.";

    private PlatformValidator() {}

    /** An event the verdict calls for. */
    public record Finding(CwEvent event, String message) {}

    /** The {@code Validated} verdict and the events it raises. */
    public record Verdict(Validation validation, List<Finding> events) {}

    /**
     * Judges {@code spec} (defaults applied) against the catalogue; {@code catalogue} answers null for an unknown type,
     * and {@code catalogueLoaded} is false until the capacity-service has published it.
     */
    public static Verdict judge(NodePoolSpec spec, Function<String, InstanceType> catalogue, boolean catalogueLoaded) {
        List<String> problems = new ArrayList<>();
        List<Finding> events = new ArrayList<>();
        String type = spec.instanceType();
        String zone = spec.region();

        InstanceType known = null;
        if (catalogueLoaded) {
            known = catalogue.apply(type);
            if (known == null) {
                String message = "Instance type " + type + " is not a valid instance type.";
                problems.add(message);
                events.add(new Finding(CwEvent.CWInvalidInstanceType, message));
            } else if (!known.offeredIn(zone)) {
                String message = "Instance type " + type + " is not available in zone " + zone + " (offered in "
                        + String.join(", ", known.zones()) + ").";
                problems.add(message);
                events.add(new Finding(CwEvent.CWInstanceTypeNotInZone, message));
            } else if (spec.isSpot() && known.superchip()) {
                problems.add("Spot Node Pools are not available for Superchip instance types (GH200, GB200, GB300); "
                        + type + " is one.");
            } else if (spec.isSpot() && !SpotZones.offered(zone, false)) {
                problems.add("Spot Node Pools are available only in General Access zones ("
                        + String.join(", ", SpotZones.GENERAL_ACCESS) + "); " + zone + " has no spot capacity.");
            }
        }
        Image image = spec.image();
        if (image != null
                && image.name() != null
                && ((image.kernel() != null && !image.kernel().isEmpty())
                        || !Image.STABLE.equals(image.releaseTrain()))) {
            problems.add("spec.image: when name is set, kernel must be empty and releaseTrain must be stable.");
        }
        Integer min = spec.minNodes();
        Integer max = spec.maxNodes();
        if (min != null && max != null && min > max) {
            problems.add("spec.minNodes (" + min + ") must not be greater than spec.maxNodes (" + max + ").");
        } else if (Boolean.TRUE.equals(spec.autoscaling())) {
            int target = spec.target();
            if ((min != null && target < min) || (max != null && target > max)) {
                problems.add("spec.targetNodes (" + target + ") must be within spec.minNodes ("
                        + (min == null ? "unset" : min) + ") and spec.maxNodes (" + (max == null ? "unset" : max)
                        + ") when autoscaling is enabled.");
            }
        }

        if (!problems.isEmpty()) {
            return new Verdict(new Validation(Conditions.Validated.INVALID, String.join(" ", problems)), events);
        }
        if (!catalogueLoaded) {
            return new Verdict(
                    new Validation(
                            Conditions.Validated.INTERNAL_ERROR,
                            "The instance-type catalogue is not available yet; the NodePool will be validated when it is."),
                    events);
        }
        String message = image != null && spec.gpu() != null
                ? VALID_MESSAGE + " Both image and gpu are set: gpu is ignored and image takes precedence."
                : VALID_MESSAGE;
        return new Verdict(new Validation(Conditions.Validated.VALID, message), events);
    }
}
