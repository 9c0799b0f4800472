package com.coreweave.nodepool.quota;

import static io.restassured.RestAssured.given;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.auth.PeerTarget;
import com.coreweave.nodepool.kit.auth.TokenRealm;
import com.coreweave.nodepool.testing.KafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * The dashboard reads quotas on its caller's behalf with a peer assertion of that caller, never the caller's own
 * credential (issue 27): the assertion reads what the caller may read, and writes nothing.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class PeerReadIT {

    @Inject
    TokenRealm realm;

    private static PeerTarget get(String path) {
        return new PeerTarget("quota-service", "GET", path);
    }

    @Test
    void aPeerAssertionReadsAsItsCallerAndNoMore() {
        given().header(
                        CurrentCaller.PEER_ASSERTION_HEADER,
                        realm.peerAssertion(new Caller("demo", false), get("/quotas")))
                .get("/quotas")
                .then()
                .statusCode(200);
        given().header(
                        CurrentCaller.PEER_ASSERTION_HEADER,
                        realm.peerAssertion(new Caller("demo", false), get("/admin/quotas")))
                .get("/admin/quotas")
                .then()
                .statusCode(403);
        given().header(
                        CurrentCaller.PEER_ASSERTION_HEADER,
                        realm.peerAssertion(new Caller("ops", true), get("/admin/quotas")))
                .get("/admin/quotas")
                .then()
                .statusCode(200);
    }

    @Test
    void anAssertionMadeForOnePathReadsNoOther() {
        given().header(
                        CurrentCaller.PEER_ASSERTION_HEADER,
                        realm.peerAssertion(new Caller("ops", true), get("/quotas")))
                .get("/admin/quotas")
                .then()
                .statusCode(401)
                .body("message", Matchers.equalTo("peer assertion made for another request"));
    }

    @Test
    void aPeerAssertionNeverWrites() {
        String path = "/admin/quotas/demo/" + Pools.ZONE + "/peer-write-type";
        given().header(
                        CurrentCaller.PEER_ASSERTION_HEADER,
                        realm.peerAssertion(new Caller("ops", true), new PeerTarget("quota-service", "PUT", path)))
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": 3}")
                .put(path)
                .then()
                .statusCode(401)
                .body("message", Matchers.containsString("only for reads"));
    }

    @Test
    void aForgedAssertionIsRefused() {
        given().header(CurrentCaller.PEER_ASSERTION_HEADER, "eyJ1c2VyIjoiZGVtbyJ9.forged")
                .get("/quotas")
                .then()
                .statusCode(401);
    }
}
