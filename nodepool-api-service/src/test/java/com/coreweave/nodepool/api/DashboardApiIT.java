package com.coreweave.nodepool.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import com.coreweave.nodepool.testing.KafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.net.URI;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard as the api-service serves it: its page, who a token is, and the reads it makes for the browser. The
 * same test resources as the other tests here, so the application is not restarted for this class.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class DashboardApiIT {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";
    static QuotaServiceStub quotaService;

    @BeforeAll
    static void quotaService() {
        quotaService =
                new QuotaServiceStub(ConfigProvider.getConfig().getValue("nodepool.dashboard.quota-url", URI.class));
    }

    @AfterAll
    static void close() {
        quotaService.close();
    }

    @Test
    void thePageIsServedWithoutATokenAndMayLoadNothingFromElsewhere() {
        RestAssured.given()
                .redirects()
                .follow(false)
                .get("/dashboard")
                .then()
                .statusCode(302)
                .header("Location", startsWith("/dashboard/"));
        RestAssured.get("/dashboard/")
                .then()
                .statusCode(200)
                .contentType(containsString("text/html"))
                .header("Content-Security-Policy", startsWith("default-src 'self'"))
                .body(containsString("<script type=\"module\" src=\"js/app.js\">"));
        RestAssured.get("/dashboard/js/app.js").then().statusCode(200).header("Cache-Control", equalTo("no-cache"));
    }

    @Test
    void whoamiSaysWhichOrgATokenActsForAndWhetherItIsAnOperators() {
        RestAssured.get("/dashboard/api/whoami").then().statusCode(401).body("kind", equalTo("Status"));
        NodePoolApiIT.as("demo-token")
                .get("/dashboard/api/whoami")
                .then()
                .statusCode(200)
                .body("org", equalTo("demo"))
                .body("admin", equalTo(false));
        NodePoolApiIT.as("admin-token")
                .get("/dashboard/api/whoami")
                .then()
                .statusCode(200)
                .body("admin", equalTo(true));
    }

    @Test
    void quotasAreTheCallersOwnOrEveryOrgsForAnOperatorAskedWithAPeerAssertionNotTheCallersToken() {
        NodePoolApiIT.as("demo-token")
                .get("/dashboard/api/quotas")
                .then()
                .statusCode(200)
                .body("asked", equalTo("/quotas"))
                .body("authorization", equalTo("null"))
                .body("asserted.org", equalTo("demo"));
        NodePoolApiIT.as("admin-token")
                .get("/dashboard/api/quotas")
                .then()
                .statusCode(200)
                .body("asked", equalTo("/admin/quotas"));
        // The quota-service's refusal reaches the browser as it was given.
        NodePoolApiIT.as("other-token")
                .get("/dashboard/api/quotas")
                .then()
                .statusCode(403)
                .body("reason", equalTo("Forbidden"));
    }

    @Test
    void theFleetIsForOperatorsAndAnUnreachableCapacityServiceIsA503() {
        NodePoolApiIT.as("demo-token")
                .get("/dashboard/api/fleet")
                .then()
                .statusCode(403)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("Forbidden"));
        NodePoolApiIT.as("admin-token")
                .get("/dashboard/api/fleet")
                .then()
                .statusCode(503)
                .body("kind", equalTo("Status"))
                .body("message", containsString("/admin/fleet"));
    }

    /** Whether the platform finds the pools valid does not matter here: every published pool is listed. */
    @Test
    void anOperatorSeesEveryOrgsPoolsEachWithItsOrg() {
        String manifest = """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"same-name"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":1}}""";
        NodePoolApiIT.as("demo-token").body(manifest).post(POOLS).then().statusCode(201);
        NodePoolApiIT.as("other-token").body(manifest).post(POOLS).then().statusCode(201);

        NodePoolApiIT.as("demo-token").get("/dashboard/api/nodepools").then().statusCode(403);
        List<String> owners = NodePoolApiIT.as("admin-token")
                .get("/dashboard/api/nodepools")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("findAll { it.pool.metadata.name == 'same-name' }.org", String.class);
        assertThat(owners).containsExactly("demo", "other");
    }
}
