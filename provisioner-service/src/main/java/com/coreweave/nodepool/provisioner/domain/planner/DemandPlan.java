package com.coreweave.nodepool.provisioner.domain.planner;

import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Which autoscaling pool of an org serves which pending workload, and how many nodes each pool is asked for: the
 * decision of the demand planner, made again whole for the org whenever a workload, a pool or the fleet changes.
 *
 * <ul>
 *   <li>Workloads are served in the order they arrived (then by name).
 *   <li>A pool fits a workload when its instance type is the one asked (or its type's GPU model is, with at least the
 *       pod's GPUs on a node), the workload's node selector is among the pool's node labels, every NoSchedule or
 *       NoExecute taint of the pool is tolerated, and the zone is the one asked, if any.
 *   <li>Fitting pools are tried by highest {@code weight}, then name; a pool at {@code maxNodes}, one capacity keeps
 *       waiting (queued nodes, {@code NoneAvailable}) or whose zone has no free machine of its type is skipped, and the
 *       next one is tried: the fallback to another pool or zone.
 *   <li>A pool's idle and booting nodes ({@code spare}) serve demand before free machines are asked for.
 *   <li>A gang is granted whole in one pool or not at all, and says why it waits; other workloads take what each
 *       fitting pool can give, in turn.
 * </ul>
 */
public final class DemandPlan {

    /** A workload the planner holds, and when it first arrived. */
    public record Waiting(Workload workload, Instant arrivedAt) {}

    /**
     * Each offered pool's demand, each workload's verdict, and the plan's work ({@link PoolFits}'s checks and more).
     */
    public record Result(List<PoolDemand> demands, List<WorkloadStatus> statuses, int work) {}

    /** The most pool checks one plan makes, whatever the org's workloads ask (docs/autoscaling.md: what it costs). */
    public static final int MAX_CHECKS_PER_PLAN = 100_000;

    public static final String NO_POOL_FITS = "NoPoolFits";
    public static final String MAX_NODES_REACHED = "MaxNodesReached";
    public static final String NONE_AVAILABLE = "NoneAvailable";
    public static final String GANG_DOES_NOT_FIT = "GangDoesNotFit";
    public static final String WAITING_FOR_NODES = "WaitingForNodes";
    /** The plan's checks ran out before this workload's needs: it is planned once earlier ones are placed or gone. */
    public static final String DEFERRED = "Deferred";

    private final Function<ZoneTypeKey, FleetAvailability> fleet;
    private final Function<String, InstanceType> catalogue;
    /** Free machines left per ledger as the plan hands them out; absent until a ledger is looked at. */
    private final Map<ZoneTypeKey, Integer> free = new HashMap<>();

    private DemandPlan(Function<ZoneTypeKey, FleetAvailability> fleet, Function<String, InstanceType> catalogue) {
        this.fleet = fleet;
        this.catalogue = catalogue;
    }

    /**
     * Plans an org's demand; {@code fleet} gives a ledger's availability (null when not yet published: its free
     * machines are not known, so they do not hold the pool back) and {@code catalogue} an instance type (null if
     * unknown).
     */
    public static Result plan(
            List<Waiting> workloads,
            List<PoolOffer> offers,
            Function<ZoneTypeKey, FleetAvailability> fleet,
            Function<String, InstanceType> catalogue) {
        return new DemandPlan(fleet, catalogue).plan(workloads, offers);
    }

    private Result plan(List<Waiting> workloads, List<PoolOffer> offers) {
        Map<String, Room> rooms = new LinkedHashMap<>();
        offers.stream()
                .filter(o -> !o.withdrawn())
                .sorted(Comparator.comparingInt(PoolOffer::weight).reversed().thenComparing(PoolOffer::pool))
                .forEach(o -> rooms.put(o.pool(), new Room(o)));
        PoolFits<Room> fits =
                new PoolFits<>(List.copyOf(rooms.values()), room -> room.offer, catalogue, MAX_CHECKS_PER_PLAN);
        List<WorkloadStatus> statuses = new ArrayList<>();
        workloads.stream()
                .sorted(Comparator.comparing(Waiting::arrivedAt)
                        .thenComparing(w -> w.workload().name()))
                .forEach(w -> statuses.add(place(w.workload(), fits)));
        List<PoolDemand> demands = rooms.values().stream().map(Room::demand).toList();
        return new Result(demands, statuses, fits.checks() + workloads.size());
    }

    private WorkloadStatus place(Workload workload, PoolFits<Room> fits) {
        if (workload.pending() == 0) {
            return status(workload, WorkloadStatus.SCHEDULED, null, 0, null, "Every pod is scheduled.");
        }
        List<Room> fitting = fits.of(workload.needs());
        if (fitting == null) {
            return status(
                    workload,
                    WorkloadStatus.PENDING,
                    null,
                    0,
                    DEFERRED,
                    "The org's plan made its " + MAX_CHECKS_PER_PLAN + " pool checks for earlier workloads' needs;"
                            + " this one is planned once they are placed or gone.");
        }
        if (fitting.isEmpty()) {
            return status(
                    workload,
                    WorkloadStatus.PENDING,
                    null,
                    0,
                    NO_POOL_FITS,
                    "No autoscaling pool of the org fits its pods (instance type or GPUs, node selector, tolerations,"
                            + " zone).");
        }
        return workload.gang() ? placeGang(workload, fitting) : placeEach(workload, fitting);
    }

    /** A gang: all its nodes in the first pool that can take them at once, or none. */
    private WorkloadStatus placeGang(Workload workload, List<Room> fitting) {
        Skip first = null;
        for (Room room : fitting) {
            int needed = room.nodesFor(workload.pending(), workload.needs());
            Skip skip = room.skip(needed);
            if (skip == null && room.available() < needed) {
                skip = new Skip(
                        GANG_DOES_NOT_FIT,
                        needed + " nodes of " + room.offer.instanceType() + " needed in " + room.offer.zone() + ", "
                                + room.available() + " free");
            }
            if (skip == null) {
                room.take(workload, needed);
                return placed(workload, room.offer.pool(), needed);
            }
            first = first == null ? skip : first;
        }
        fitting.get(0).block(first, workload);
        return status(
                workload, WorkloadStatus.PENDING, null, 0, first.reason, "The gang waits whole: " + first.message);
    }

    /** Pods that may run apart: each fitting pool in turn gives what it can until every pod has a node. */
    private WorkloadStatus placeEach(Workload workload, List<Room> fitting) {
        int pods = workload.pending();
        List<String> pools = new ArrayList<>();
        int nodes = 0;
        Skip first = null;
        for (Room room : fitting) {
            if (pods <= 0) {
                break;
            }
            int needed = room.nodesFor(pods, workload.needs());
            Skip skip = room.skip(1);
            int given = Math.min(needed, Math.min(room.headroom(), room.available()));
            if (skip == null && given == 0) {
                skip = new Skip(NONE_AVAILABLE, "no free " + room.offer.instanceType() + " in " + room.offer.zone());
            }
            if (skip != null) {
                first = first == null ? skip : first;
                continue;
            }
            room.take(workload, given);
            pools.add(room.offer.pool());
            nodes += given;
            pods -= given * room.podsPerNode(workload.needs());
        }
        if (nodes == 0) {
            fitting.get(0).block(first, workload);
            return status(workload, WorkloadStatus.PENDING, null, 0, first.reason, first.message);
        }
        return placed(workload, String.join(",", pools), nodes);
    }

    private static WorkloadStatus placed(Workload workload, String pools, int nodes) {
        return status(
                workload,
                WorkloadStatus.PENDING,
                pools,
                nodes,
                WAITING_FOR_NODES,
                nodes + " node(s) asked of pool " + pools + ".");
    }

    private static WorkloadStatus status(
            Workload workload, String phase, String pool, int nodes, String reason, String message) {
        return new WorkloadStatus(
                workload.org(), workload.name(), phase, workload.pods(), workload.gang(), pool, nodes, reason, message);
    }

    /** Free machines left in the pool's ledger, or {@link Integer#MAX_VALUE} when the fleet has not said. */
    private int free(ZoneTypeKey ledger) {
        return free.computeIfAbsent(ledger, key -> {
            FleetAvailability availability = fleet.apply(key);
            return availability == null ? Integer.MAX_VALUE : Math.max(0, availability.free());
        });
    }

    /** Why a pool does not take a workload. */
    private record Skip(String reason, String message) {}

    /** One pool while the plan hands out its room, and what it is asked for. */
    private final class Room {

        private final PoolOffer offer;
        private final ZoneTypeKey ledger;
        /** How many nodes more it may be asked for before {@code maxNodes}. */
        private int headroom;

        private int spare;
        private int nodes;
        private final List<String> names = new ArrayList<>();
        private int workloads;
        private Skip blocked;

        Room(PoolOffer offer) {
            this.offer = offer;
            this.ledger = new ZoneTypeKey(offer.zone(), offer.instanceType());
            int busy = Math.max(0, offer.nodes() - offer.spare());
            this.headroom = offer.maxNodes() == null ? Integer.MAX_VALUE : Math.max(0, offer.maxNodes() - busy);
            this.spare = offer.spare();
        }

        int headroom() {
            return headroom;
        }

        /** Spare nodes and free machines of the pool's ledger. */
        int available() {
            long sum = (long) spare + free(ledger);
            return (int) Math.min(Integer.MAX_VALUE, sum);
        }

        int podsPerNode(Workload.Needs needs) {
            InstanceType type = catalogue.apply(offer.instanceType());
            return needs.gpusPerPod() == 0 || type == null ? 1 : Math.max(1, type.gpuCount() / needs.gpusPerPod());
        }

        int nodesFor(int pods, Workload.Needs needs) {
            int perNode = podsPerNode(needs);
            return (pods + perNode - 1) / perNode;
        }

        /** Why the pool cannot take {@code needed} nodes whatever the fleet has, or null. */
        Skip skip(int needed) {
            if (offer.noneAvailable() || offer.queued() > 0) {
                return new Skip(
                        NONE_AVAILABLE,
                        "pool " + offer.pool() + " waits for capacity (" + offer.queued() + " node(s) queued)");
            }
            if (headroom < needed) {
                return new Skip(
                        MAX_NODES_REACHED,
                        "pool " + offer.pool() + " may grow by " + headroom + " node(s) (maxNodes " + offer.maxNodes()
                                + "), " + needed + " needed");
            }
            return null;
        }

        void take(Workload workload, int count) {
            int fromSpare = Math.min(spare, count);
            spare -= fromSpare;
            int fromFleet = count - fromSpare;
            int left = free(ledger);
            if (left != Integer.MAX_VALUE) {
                free.put(ledger, Math.max(0, left - fromFleet));
            }
            headroom -= count;
            nodes += count;
            workloads++;
            if (names.size() < PoolDemand.MAX_NAMES) {
                names.add(workload.name());
            }
        }

        /** Demand that fits this pool first could not be met: the first such reason is the pool's. */
        void block(Skip skip, Workload workload) {
            if (blocked == null) {
                blocked = new Skip(skip.reason, workload.name() + ": " + skip.message);
            }
        }

        PoolDemand demand() {
            return new PoolDemand(
                    offer.org(),
                    offer.pool(),
                    nodes,
                    workloads,
                    names,
                    blocked == null ? null : blocked.reason,
                    blocked == null ? null : blocked.message);
        }
    }
}
