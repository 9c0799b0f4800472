package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Ledger inputs as the other services write them, for tests of one zone × type (US-EAST-04A/gd-8xa100-i128). */
public final class Inputs {

    static final String ZONE = "US-EAST-04A";
    static final String TYPE = "gd-8xa100-i128";
    static final ZoneTypeKey KEY = new ZoneTypeKey(ZONE, TYPE);
    static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    private static final AtomicInteger REQUESTS = new AtomicInteger();

    private Inputs() {}

    static PoolRef pool(String name) {
        return pool(name, "default", 1);
    }

    static PoolRef spot(String name) {
        return pool(name, "spot", 1);
    }

    static PoolRef pool(String name, String computeClass, long generation) {
        return new PoolRef("demo", name, "uid-" + name, generation, ZONE, TYPE, computeClass);
    }

    static LedgerInput demand(PoolRef pool, int admitted) {
        return new LedgerInput.Demand(pool.key().toString(), quota(pool, admitted, NOW));
    }

    /** The quota-service's decision admitting all {@code admitted} nodes a pool asks for. */
    public static QuotaChecked quota(PoolRef pool, int admitted, Instant at) {
        return new QuotaChecked(
                pool,
                "Under",
                admitted,
                admitted,
                null,
                admitted,
                false,
                "NodePool is within instance type quota.",
                at);
    }

    static LedgerInput forget(PoolRef pool) {
        return new LedgerInput.Forget(pool.key().toString(), pool.uid());
    }

    static LedgerInput release(PoolRef pool, Grant grant, String cause) {
        Node node = new Node("v1", "Node", null, null, null);
        return new LedgerInput.Release(new NodeFact.NodeRemoved(pool, node, grant, cause, NOW));
    }

    static LedgerInput fleet(FleetChangeRequested.Operation operation, Integer count, List<String> machines) {
        return new LedgerInput.FleetChange(new FleetChangeRequested(
                "req-" + REQUESTS.incrementAndGet(), ZONE, TYPE, operation, count, machines, NOW));
    }

    static LedgerInput size(int machines) {
        return fleet(FleetChangeRequested.Operation.SET_SIZE, machines, null);
    }

    static String machine(int index) {
        return Machine.nameOf(ZONE, TYPE, index);
    }
}
