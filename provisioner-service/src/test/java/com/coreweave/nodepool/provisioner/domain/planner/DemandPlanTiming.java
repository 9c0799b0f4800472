package com.coreweave.nodepool.provisioner.domain.planner;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What the largest plan of one org costs on this machine (docs/autoscaling.md, "How long a plan takes"): a thousand
 * workloads of a thousand different needs against a thousand pools of one type, the worst the bounds allow, and a
 * thousand workloads of one need. A measurement, not a test: run its {@code main} on the provisioner's test class path
 * (e.g. from an IDE), on a quiet machine.
 */
public final class DemandPlanTiming {

    private DemandPlanTiming() {}

    public static void main(String[] args) {
        String type = DemandPlanTest.A100;
        Map<String, InstanceType> catalogue = Map.of(
                type, new InstanceType(type, "8x A100", "A100", 8, 128, 1024, false, List.of(DemandPlanTest.ZONE)));
        List<PoolOffer> pools = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            pools.add(DemandPlanTest.pool("p-" + i, type, DemandPlanTest.ZONE, null, 0));
        }
        List<DemandPlan.Waiting> distinct = new ArrayList<>();
        List<DemandPlan.Waiting> alike = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            Instant at = DemandPlanTest.T0.plusSeconds(i);
            distinct.add(new DemandPlan.Waiting(
                    new Workload(
                            "acme",
                            "job-" + i,
                            1,
                            false,
                            new Workload.Needs(type, null, null, Map.of("team", "t-" + i), List.of(), null),
                            null),
                    at));
            alike.add(new DemandPlan.Waiting(
                    new Workload("acme", "job-" + i, 1, false, DemandPlanTest.type(type), null), at));
        }
        report("1,000 workloads of 1,000 needs, 1,000 pools", distinct, pools, catalogue);
        report("1,000 workloads of one need, 1,000 pools", alike, pools, catalogue);
    }

    private static void report(
            String what, List<DemandPlan.Waiting> workloads, List<PoolOffer> pools, Map<String, InstanceType> types) {
        int runs = 30;
        long[] nanos = new long[runs];
        int work = 0;
        for (int run = 0; run < runs; run++) {
            long start = System.nanoTime();
            work = DemandPlan.plan(workloads, pools, ledger -> null, types::get).work();
            nanos[run] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        System.out.printf(
                "%s: work %,d; median of %d runs %.1f ms, slowest (the first, cold) %.1f ms%n",
                what, work, runs, nanos[runs / 2] / 1e6, nanos[runs - 1] / 1e6);
    }
}
