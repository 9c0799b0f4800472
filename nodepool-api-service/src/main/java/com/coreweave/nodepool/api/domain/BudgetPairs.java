package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.ManifestFindings.join;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The fields of a disruption budget that go in pairs, as Karpenter's do: a schedule needs a duration and a duration a
 * schedule; maxPerWindow needs a window and a window maxPerWindow. The missing one is named.
 */
final class BudgetPairs {

    static final String BUDGETS = "spec.disruption.budgets";

    private BudgetPairs() {}

    static void check(JsonNode budgets, ManifestFindings found) {
        if (!budgets.isArray()) {
            return;
        }
        for (int i = 0; i < budgets.size(); i++) {
            JsonNode budget = budgets.get(i);
            String path = BUDGETS + "[" + i + "]";
            if (budget.isObject()) {
                pair(budget, path, "schedule", "duration", found);
                pair(budget, path, "maxPerWindow", "window", found);
            }
        }
    }

    private static void pair(JsonNode budget, String path, String one, String other, ManifestFindings found) {
        boolean hasOne = !budget.path(one).isMissingNode() && !budget.path(one).isNull();
        boolean hasOther =
                !budget.path(other).isMissingNode() && !budget.path(other).isNull();
        if (hasOne != hasOther) {
            String missing = hasOne ? other : one;
            found.add(
                    REQUIRED,
                    "Required value: a budget with " + (hasOne ? one : other) + " needs " + missing,
                    join(path, missing));
        }
    }
}
