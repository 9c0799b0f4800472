package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.BudgetPairs.BUDGETS;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.coreweave.nodepool.api.kube.KubeSyntax;
import com.coreweave.nodepool.api.kube.NodePoolDefinition;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.CronSchedule;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The structural rules of a NodePool manifest, checked on the JSON tree before anything is bound so that every bad
 * field is reported at once with its path, as a Kubernetes API server does. The spec is checked against the
 * CustomResourceDefinition's schema ({@link NodePoolDefinition}, walked by {@link SchemaWalk}: types, enums, required
 * fields, minimums and maximums, longest strings and lists, patterns, unknown fields); metadata, which a CRD's schema
 * leaves to the API server ({@link ObjectMetaRules}), and the label, annotation and taint syntax that a schema cannot
 * say are checked here, and so are the sizes of labels and annotations ({@link LabelMaps}), and a disruption budget's
 * cron schedule, its durations and the fields it needs in pairs ({@link BudgetPairs}). {@code status} is ignored: it is
 * a subresource the platform writes. Rules that need the platform's knowledge (the catalogue) are
 * {@link PlatformValidator}'s.
 *
 * <p>One pass over the tree, each value looked at once: the work and the answer grow with the manifest, never with the
 * square of its bad items, and at most {@link Limits#MAX_CAUSES} causes are listed ({@link FieldErrors}).
 */
public final class ManifestValidator {

    /** Kubernetes syntax the schema cannot express, by schema path ({@code []} stands for any list index). */
    private static final Map<String, Function<String, String>> SYNTAX = Map.of(
            "spec.nodeTaints[].key",
            KubeSyntax::qualifiedNameError,
            "spec.nodeTaints[].value",
            KubeSyntax::labelValueError,
            BUDGETS + "[].schedule",
            CronSchedule::error,
            BUDGETS + "[].duration",
            d -> Disruption.durationError(d, Disruption.MAX_DURATION),
            BUDGETS + "[].window",
            w -> Disruption.durationError(w, Disruption.MAX_WINDOW),
            "spec.disruption.consolidateAfter",
            d -> Disruption.durationError(d, Disruption.MAX_DURATION),
            "spec.disruption.expireAfter",
            Disruption::expiryError);

    private static final SchemaStrings STRINGS = new SchemaStrings(NodePoolDefinition.schema(), SYNTAX);

    /** What a write asked for unknown fields, as Kubernetes' {@code fieldValidation} parameter says it. */
    public enum FieldValidation {
        /** Unknown fields are errors: the default here, and what kubectl's {@code --validate=strict} asks for. */
        Strict,
        /** Unknown fields are dropped, each with a warning. */
        Warn,
        /** Unknown fields are dropped silently. */
        Ignore;

        /** The mode a {@code fieldValidation} query parameter names; Strict when absent. */
        public static FieldValidation of(String parameter) {
            if (parameter == null || parameter.isEmpty()) {
                return Strict;
            }
            for (FieldValidation mode : values()) {
                if (mode.name().equalsIgnoreCase(parameter)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException(
                    "fieldValidation must be Strict, Warn or Ignore, not \"" + parameter + "\"");
        }
    }

    /** The manifest as it is to be stored (no status; no unknown fields unless Strict), its errors and warnings. */
    public record Checked(JsonNode manifest, FieldErrors found, List<String> warnings) {

        /** The errors as a Status lists them: at most {@link Limits#MAX_CAUSES}, then how many more. */
        public List<StatusCause> causes() {
            return found.list();
        }
    }

    private ManifestValidator() {}

    /** Every structural problem of {@code manifest}, unknown fields included; empty when it is well formed. */
    public static List<StatusCause> validate(JsonNode manifest) {
        return check(manifest, FieldValidation.Strict).causes();
    }

    public static Checked check(JsonNode manifest, FieldValidation mode) {
        ManifestFindings found = new ManifestFindings(mode);
        if (manifest == null || !manifest.isObject()) {
            found.add(TYPE_INVALID, "must be a NodePool object", "");
            return new Checked(manifest, found.causes(), List.of());
        }
        ObjectNode copy = manifest.deepCopy();
        copy.remove("status");
        LabelMaps maps = new LabelMaps(found, STRINGS);
        ObjectMetaRules metadata = new ObjectMetaRules(found, maps);
        SchemaWalk.Rules rules = new SchemaWalk.Rules() {
            @Override
            public boolean checked(String path, JsonNode value) {
                if (!path.equals("metadata")) {
                    return false;
                }
                metadata.check(value);
                return true;
            }

            @Override
            public void stringMap(JsonNode map, String path, JSONSchemaProps valueSchema) {
                maps.check(map, path, valueSchema);
            }
        };
        new SchemaWalk(found, STRINGS, rules).value(copy, NodePoolDefinition.schema(), "");
        BudgetPairs.check(copy.path("spec").path("disruption").path("budgets"), found);
        maps.sizes();
        return new Checked(copy, found.causes(), found.warnings());
    }
}
