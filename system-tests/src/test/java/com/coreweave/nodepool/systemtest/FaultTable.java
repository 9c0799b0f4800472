package com.coreweave.nodepool.systemtest;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fault table of the fault harness: one row per kind of fault, with how often it was injected, the requests
 * acknowledged while it was the latest fault, what of them was lost or duplicated, the violations found afterwards
 * (oversold: a machine granted to two pools or an org above its quota; status mismatches: a published status that
 * differs from its facts) and the worst recovery time. Everything that happened between one fault and the next is
 * counted on the row of the first; what happened before the first fault has a row of its own.
 */
final class FaultTable {

    static final String BEFORE = "no fault yet (load only)";

    /** One fault as injected: its row, when, and how long until the stack recovered ({@code null}: never). */
    record Injected(String row, String detail, Instant at, Duration recovery) {}

    /** The figures of one row. */
    static final class Row {
        int rounds;
        int acknowledged;
        int lost;
        int duplicated;
        int oversold;
        int mismatches;
        Duration worst = Duration.ZERO;
        int unrecovered;

        boolean clean() {
            return lost == 0 && duplicated == 0 && oversold == 0 && mismatches == 0 && unrecovered == 0;
        }
    }

    private final List<Injected> faults;
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final Row unattributed = new Row();
    private final List<String> notes = new ArrayList<>();

    FaultTable(List<Injected> faults) {
        this.faults = faults.stream().sorted(Comparator.comparing(Injected::at)).toList();
        rows.put(BEFORE, new Row());
        for (Injected fault : this.faults) {
            Row row = rows.computeIfAbsent(fault.row(), r -> new Row());
            row.rounds++;
            if (fault.recovery() == null) {
                row.unrecovered++;
            } else if (fault.recovery().compareTo(row.worst) > 0) {
                row.worst = fault.recovery();
            }
        }
    }

    /** The row of whatever happened at {@code at} ({@code null}: a finding no time could be given to). */
    Row at(Instant at) {
        if (at == null) {
            return unattributed;
        }
        String row = BEFORE;
        for (Injected fault : faults) {
            if (!fault.at().isAfter(at)) {
                row = fault.row();
            }
        }
        return rows.get(row);
    }

    void note(String note) {
        notes.add(note);
    }

    Row total() {
        Row total = new Row();
        List<Row> all = new ArrayList<>(rows.values());
        all.add(unattributed);
        for (Row row : all) {
            total.rounds += row.rounds;
            total.acknowledged += row.acknowledged;
            total.lost += row.lost;
            total.duplicated += row.duplicated;
            total.oversold += row.oversold;
            total.mismatches += row.mismatches;
            total.unrecovered += row.unrecovered;
            total.worst = row.worst.compareTo(total.worst) > 0 ? row.worst : total.worst;
        }
        return total;
    }

    boolean clean() {
        return total().clean();
    }

    List<Injected> faults() {
        return faults;
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("| fault | rounds | requests acknowledged | lost | duplicated | oversold | status mismatches "
                + "| worst recovery |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        rows.forEach((name, row) -> line(out, name, row));
        if (!unattributed.clean()) {
            line(out, "found after the load, no time known", unattributed);
        }
        line(out, "**all**", total());
        if (!notes.isEmpty()) {
            out.append('\n');
            notes.forEach(note -> out.append("- ").append(note).append('\n'));
        }
        return out.toString();
    }

    private static void line(StringBuilder out, String name, Row row) {
        String recovery = row.rounds == 0
                ? "-"
                : String.format(Locale.ROOT, "%.1f s", row.worst.toMillis() / 1000.0)
                        + (row.unrecovered > 0 ? ", " + row.unrecovered + " not recovered" : "");
        out.append(String.format(
                Locale.ROOT,
                "| %s | %d | %d | %d | %d | %d | %d | %s |%n",
                name,
                row.rounds,
                row.acknowledged,
                row.lost,
                row.duplicated,
                row.oversold,
                row.mismatches,
                recovery));
    }
}
