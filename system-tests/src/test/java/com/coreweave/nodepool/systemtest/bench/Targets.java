package com.coreweave.nodepool.systemtest.bench;

import java.util.List;
import java.util.Locale;

/**
 * Issue 12's targets for a default {@code ./stack bench}, each beside the figure this run measured, a met / short
 * mark, and the baseline chain's figure with our figure as a ratio to it (so runs on other machines compare).
 */
final class Targets {

  static final double PIPELINE_POOLS_PER_SECOND = 600;
  static final double TARGET_MET_P99_MS = 150;
  static final double POST_P99_MS = 40;
  static final double CPU_MS_PER_POOL = 3.5;
  /** Offsets and bytes written per pool before issue 12 (docs/benchmarks.md, "before"); the target is a third. */
  static final double BEFORE_OFFSETS_PER_POOL = 76;
  static final double BEFORE_BYTES_PER_POOL = 146_000;

  /**
   * One figure: what was measured (NaN: not measured), the target and whether it is a floor or a ceiling, the
   * baseline's comparable figure (NaN: none), the unit, and how it was measured.
   */
  record Line(String figure, double measured, double target, boolean floor, double baseline, Unit unit, String how) {

    String mark() {
      if (Double.isNaN(measured)) {
        return "not measured";
      }
      return (floor ? measured >= target : measured <= target) ? "met" : "**short**";
    }

    String ratio() {
      return Double.isNaN(measured) || Double.isNaN(baseline) || baseline == 0 ? "–"
          : String.format(Locale.ROOT, "%.2f×", measured / baseline);
    }
  }

  /** How a figure prints. */
  enum Unit {
    PER_SECOND("/s"), MILLIS("ms"), COUNT(""), BYTES("B");

    private final String suffix;

    Unit(String suffix) {
      this.suffix = suffix;
    }

    String format(double value) {
      if (Double.isNaN(value)) {
        return "–";
      }
      if (this == BYTES) {
        return value >= 10_240 ? String.format(Locale.ROOT, "%.1f KiB", value / 1024)
            : String.format(Locale.ROOT, "%,.0f B", value);
      }
      String number = value >= 100 ? String.format(Locale.ROOT, "%,.0f", value)
          : String.format(Locale.ROOT, "%.1f", value);
      return suffix.isEmpty() ? number : number + " " + suffix;
    }
  }

  private Targets() {
  }

  static String table(List<Line> lines, String baselineWhat) {
    StringBuilder md = new StringBuilder();
    md.append("| figure | measured | target | | baseline: ").append(baselineWhat)
        .append(" | ratio to the baseline | how |\n");
    md.append("| --- | ---: | ---: | --- | ---: | ---: | --- |\n");
    for (Line line : lines) {
      md.append("| ").append(line.figure())
          .append(" | ").append(line.unit().format(line.measured()))
          .append(" | ").append(line.floor() ? "≥ " : "≤ ").append(line.unit().format(line.target()))
          .append(" | ").append(line.mark())
          .append(" | ").append(line.unit().format(line.baseline()))
          .append(" | ").append(line.ratio())
          .append(" | ").append(line.how()).append(" |\n");
    }
    return md.toString();
  }
}
