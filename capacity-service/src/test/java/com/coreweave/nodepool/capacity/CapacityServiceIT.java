package com.coreweave.nodepool.capacity;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;

import com.coreweave.nodepool.capacity.domain.Inputs;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The capacity-service against the real broker, as the other services and operators see it: quota decisions in,
 * {@code capacity-checked} and spot reclaims out, the fleet admin API and the Capacity Finder. Each test uses its own
 * instance type or pools, since they share one running service.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class CapacityServiceIT {

    static final String ZONE = "US-EAST-04A";
    static final Duration WAIT = Duration.ofSeconds(30);
    static TopicProbe probe;

    @BeforeAll
    static void probe() {
        probe = new TopicProbe(KafkaResource.bootstrapServers());
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    @Test
    void publishesTheCatalogueAndListsIt() {
        probe.readUntil(
                Topics.INSTANCE_TYPE_CATALOGUED.name(),
                read -> read.stream()
                        .map(TopicProbe.Read::key)
                        .toList()
                        .containsAll(List.of("gd-8xa100-i128", "gb300-4x", "cd-hp-a96-genoa")),
                WAIT);

        given().auth()
                .oauth2("demo-token")
                .get("/instance-types")
                .then()
                .statusCode(200)
                .body("name", hasItems("gd-8xa100-i128", "gd-8xh100ib-i128", "gd-1xgh200", "cd-gp-a192-genoa"))
                .body("find { it.name == 'gb200-4x' }.superchip", equalTo(true));
    }

    @Test
    void grantsFreeMachinesQueuesTheRestAndFillsTheQueueWhenTheFleetGrows() {
        String type = "gd-8xa100-i128";
        setSize(type, 2);
        PoolRef first = pool("grant-a", type, "default");
        PoolRef second = pool("grant-b", type, "default");

        demand(first, 1);
        assertThat(latest(first, c -> c.grants().size() == 1).reason()).isEqualTo("Sufficient");
        demand(second, 3);
        CapacityChecked partial = latest(second, c -> "Partial".equals(c.reason()));
        assertThat(partial.grants()).hasSize(1);
        assertThat(partial.queuedNodes()).isEqualTo(2);
        assertThat(partial.message()).isEqualTo("2 nodes queued, position 1 of 1 for gd-8xa100-i128 in US-EAST-04A");

        asAdmin("{\"add\": 2}")
                .post("/admin/fleet/" + ZONE + "/" + type + "/machines")
                .then()
                .statusCode(200)
                .body("status", equalTo("Applied"))
                .body("added", equalTo(2));

        CapacityChecked filled = latest(second, c -> c.grants().size() == 3);
        assertThat(filled.reason()).isEqualTo("Sufficient");
        assertThat(filled.queuedNodes()).isZero();
    }

    @Test
    void releasesAGrantExactlyOnce() {
        String type = "gd-8xh100ib-i128";
        setSize(type, 2);
        PoolRef holder = pool("release-a", type, "default");
        PoolRef waiter = pool("release-b", type, "default");
        demand(holder, 2);
        List<Grant> held = latest(holder, c -> c.grants().size() == 2).grants();
        demand(waiter, 1);
        latest(waiter, c -> "NoneAvailable".equals(c.reason()));
        demand(holder, 0);
        assertThat(latest(holder, c -> c.requestedNodes() == 0).grants()).hasSize(2);

        // One partition keeps these in order: the repeat comes after the machine went to the waiting pool.
        removed(holder, held.get(1));
        removed(holder, held.get(1));
        removed(holder, held.get(0));

        assertThat(latest(holder, c -> c.grants().isEmpty()).reason()).isNull();
        Grant regranted = latest(waiter, c -> c.grants().size() == 1).grants().get(0);
        assertThat(regranted.machine()).isEqualTo(held.get(1).machine());
        assertThat(regranted.grantId()).isGreaterThan(held.get(1).grantId());
        asAdmin()
                .get("/admin/fleet/" + ZONE + "/" + type)
                .then()
                .statusCode(200)
                .body("free", equalTo(1))
                .body("allocated", equalTo(1))
                .body("allocatedByPool.'demo/release-b'", equalTo(1));
    }

    @Test
    void asksSpotNodesBackWhenReservedDemandWaitsAndHandsThemOver() {
        String type = "gd-8xl40s-i128";
        setSize(type, 2);
        PoolRef spot = pool("spot-s", type, "spot");
        PoolRef reserved = pool("reserved-r", type, "default");
        demand(spot, 2);
        List<Grant> spotGrants = latest(spot, c -> c.grants().size() == 2).grants();
        demand(reserved, 1);

        var reclaims = probe.readUntil(
                Topics.SPOT_RECLAIM_REQUESTED.name(),
                read -> read.stream().anyMatch(r -> r.key().equals("demo/spot-s")),
                WAIT);
        SpotReclaimRequested reclaim = reclaims.stream()
                .filter(r -> r.key().equals("demo/spot-s"))
                .findFirst()
                .orElseThrow()
                .as(SpotReclaimRequested.class);
        Grant newest = spotGrants.get(1);
        assertThat(reclaim.nodes()).containsExactly(newest.machine());

        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                "demo/spot-s",
                new NodeFact.NodeRemoved(spot, node(), newest, "Preempted", Instant.now()));

        CapacityChecked served = latest(reserved, c -> c.grants().size() == 1);
        assertThat(served.grants().get(0).machine()).isEqualTo(newest.machine());
        assertThat(latest(spot, c -> c.grants().size() == 1).reason()).isEqualTo("QueuedAwaitingCapacity");
    }

    @Test
    void answersTheCapacityFinderZoneByZoneBestFirst() {
        setSize("cd-gp-a192-genoa", 5);

        given().auth()
                .oauth2("demo-token")
                .get("/capacity/availability?instanceType=cd-gp-a192-genoa&nodes=3")
                .then()
                .statusCode(200)
                .body("zones", hasSize(4))
                .body("zones[0].zone", equalTo(ZONE))
                .body("zones[0].free", equalTo(5))
                .body("zones[0].fitsDefault", equalTo(true))
                .body("zones[0].fitsSpot", equalTo(true))
                .body("zones[1].fitsDefault", equalTo(false));
        given().auth()
                .oauth2("demo-token")
                .get("/capacity/availability?nodes=3")
                .then()
                .statusCode(400)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("BadRequest"));
        given().auth()
                .oauth2("demo-token")
                .get("/capacity/availability?instanceType=cd-gp-a192-genoa&nodes=many")
                .then()
                .statusCode(400)
                .body("message", equalTo("query parameter nodes must be a whole number, not 'many'"));
        given().auth()
                .oauth2("demo-token")
                .get("/capacity/availability?instanceType=gd-9xz900&nodes=1")
                .then()
                .statusCode(404)
                .body("reason", equalTo("NotFound"));
        given().get("/capacity/availability?instanceType=cd-gp-a192-genoa&nodes=1")
                .then()
                .statusCode(401);
    }

    @Test
    void answersFleetAdminCallsAndRefusesWhatCannotBeDone() {
        String type = "cd-gp-i64-erapids";
        String fleet = "/admin/fleet/" + ZONE + "/" + type;
        setSize(type, 3);
        PoolRef holder = pool("cpu-holder", type, "default");
        demand(holder, 1);
        String busy =
                latest(holder, c -> c.grants().size() == 1).grants().get(0).machine();

        asAdmin()
                .delete(fleet + "/machines/" + busy)
                .then()
                .statusCode(409)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("Conflict"));
        asAdmin()
                .delete(fleet + "/machines/us-east-04a-cd-gp-i64-erapids-0003")
                .then()
                .statusCode(200)
                .body("retired", equalTo(1))
                .body("ledger.total", equalTo(2));
        asAdmin().delete(fleet + "/machines/no-such-machine").then().statusCode(404);
        asAdmin("{\"machines\": [\"us-east-04a-cd-gp-i64-erapids-0002\"]}")
                .post(fleet + "/maintenance")
                .then()
                .statusCode(200);
        asAdmin("{\"machines\": 0}")
                .put(fleet)
                .then()
                .statusCode(200)
                .body("notRetired", equalTo(1))
                .body(
                        "message",
                        equalTo("0 machine(s) retired from "
                                + "US-EAST-04A/cd-gp-i64-erapids; 1 could not be retired yet because pools hold them (retry once they "
                                + "are released)"));
        asAdmin()
                .get("/admin/fleet")
                .then()
                .statusCode(200)
                .body("find { it.instanceType == 'cd-gp-i64-erapids' }.maintenance", equalTo(1))
                .body("find { it.instanceType == 'cd-gp-i64-erapids' }.machines", nullValue());
        asAdmin("{\"machines\": [\"us-east-04a-cd-gp-i64-erapids-0002\"]}")
                .post(fleet + "/return")
                .then()
                .statusCode(200)
                .body("message", equalTo("1 machine(s) returned to service"))
                .body("ledger.maintenance", equalTo(0));

        asAdmin("{\"machines\": 4}")
                .put("/admin/fleet/" + ZONE + "/gd-8xh200ib-i128")
                .then()
                .statusCode(422)
                .body("reason", equalTo("Invalid"))
                .body(
                        "message",
                        equalTo("Fleet.compute.coreweave.com \"US-EAST-04A/gd-8xh200ib-i128\" is invalid: "
                                + "instanceType: instance type gd-8xh200ib-i128 is not offered in zone US-EAST-04A (offered in "
                                + "US-EAST-06A, US-EAST-08A, EU-SOUTH-04A)"));
        asAdmin("{\"machines\": 4}")
                .put("/admin/fleet/" + ZONE + "/gd-nope")
                .then()
                .statusCode(422);
        asAdmin("{\"machines\": -1}").put(fleet).then().statusCode(400);
        asAdmin("{not json").put(fleet).then().statusCode(400).body("kind", equalTo("Status"));
        given().auth().oauth2("demo-token").get("/admin/fleet").then().statusCode(403);
        given().auth()
                .oauth2("demo-token")
                .contentType(ContentType.JSON)
                .body("{\"nodes\": 1}")
                .post(fleet + "/reclaim-spot")
                .then()
                .statusCode(403);
    }

    @Test
    void sendsGarbageOnAnInputToTheDeadLetterTopic() {
        probe.send(Topics.CAPACITY_DEMANDED.name(), "GARBAGE-ZONE/garbage", "{garbage");

        var dead = probe.readUntil(
                "capacity-service-dlq",
                read -> read.stream().anyMatch(r -> "GARBAGE-ZONE/garbage".equals(r.key())),
                WAIT);
        var record = dead.stream()
                .filter(r -> "GARBAGE-ZONE/garbage".equals(r.key()))
                .findFirst()
                .orElseThrow();
        assertThat(record.value()).isEqualTo("{garbage");
        assertThat(record.headers())
                .containsEntry(DeadLetters.ERROR, "MalformedJson")
                .containsEntry(DeadLetters.SOURCE_TOPIC, Topics.CAPACITY_DEMANDED.name())
                .containsEntry(DeadLetters.SERVICE, "capacity-service");
    }

    /** A request as an operator (admin token). */
    static RequestSpecification asAdmin() {
        return given().auth().oauth2("admin-token");
    }

    /** An operator's request with a JSON body. */
    static RequestSpecification asAdmin(String json) {
        return asAdmin().contentType(ContentType.JSON).body(json);
    }

    static PoolRef pool(String name, String type, String computeClass) {
        return new PoolRef("demo", name, "uid-" + name, 1, ZONE, type, computeClass);
    }

    static void setSize(String type, int machines) {
        asAdmin("{\"machines\": " + machines + "}")
                .put("/admin/fleet/" + ZONE + "/" + type)
                .then()
                .log()
                .ifValidationFails()
                .statusCode(200)
                .body("status", equalTo("Applied"));
    }

    static void demand(PoolRef pool, int admitted) {
        probe.sendJson(
                Topics.CAPACITY_DEMANDED.name(),
                pool.zone() + "/" + pool.instanceType(),
                CapacityDemanded.of(Inputs.quota(pool, admitted, Instant.now())));
    }

    static void removed(PoolRef pool, Grant grant) {
        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                pool.key().toString(),
                new NodeFact.NodeRemoved(pool, node(), grant, "ScaleDown", Instant.now()));
    }

    static Node node() {
        return new Node("v1", "Node", new Node.Meta("removed-node", null, null, null), null, null);
    }

    /** Reads {@code capacity-checked} until the pool's latest record matches, and returns it. */
    static CapacityChecked latest(PoolRef pool, Predicate<CapacityChecked> expected) {
        String key = pool.key().toString();
        var read = probe.readUntil(
                Topics.CAPACITY_CHECKED.name(),
                records -> records.stream()
                        .filter(r -> key.equals(r.key()) && r.value() != null)
                        .reduce((x, y) -> y)
                        .map(r -> expected.test(r.as(CapacityChecked.class)))
                        .orElse(false),
                WAIT);
        return read.stream()
                .filter(r -> key.equals(r.key()) && r.value() != null)
                .reduce((x, y) -> y)
                .orElseThrow()
                .as(CapacityChecked.class);
    }
}
