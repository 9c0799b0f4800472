package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.systemtest.harness.ApiTls;
import com.coreweave.nodepool.systemtest.harness.JwtKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call, on the whole stack: a JWT signed by the deployment's key names its org; an expired one, one signed by
 * another key and a client certificate of another CA are refused. kubectl with the stack's client certificates is
 * {@link KubectlIT}.
 */
@StackUse.Shares
class IdentitiesIT {

    static final String NODEPOOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";

    @TempDir
    Path dir;

    private static Api with(String token) {
        return SystemStack.api(token);
    }

    @Test
    void shouldServeASignedTokenOfTheDeploymentsKeyAsItsOrg() {
        String token = SystemStack.get().jwtKeys().sign("jwt-user", "identities-it", List.of());

        Api.Answer answer = with(token).get(NODEPOOLS);

        assertThat(answer.code()).as(String.valueOf(answer.body())).isEqualTo(200);
        assertThat(answer.text("/kind")).isEqualTo("NodePoolList");
    }

    @Test
    void shouldRefuseAnExpiredSignedToken() {
        String expired = SystemStack.get()
                .jwtKeys()
                .sign(
                        "jwt-user",
                        "identities-it",
                        List.of(),
                        Instant.now().minus(Duration.ofDays(2)),
                        Duration.ofDays(1));

        Api.Answer answer = with(expired).get(NODEPOOLS);

        assertThat(answer.code()).isEqualTo(401);
        assertThat(answer.text("/kind")).isEqualTo("Status");
        assertThat(answer.text("/message")).isEqualTo("token expired");
    }

    @Test
    void shouldRefuseATokenSignedByAnotherKey() {
        String forged = JwtKeys.create(dir.resolve("foreign")).sign("jwt-user", "identities-it", List.of("operator"));

        Api.Answer answer = with(forged).get(NODEPOOLS);

        assertThat(answer.code()).isEqualTo(401);
        assertThat(answer.text("/message")).isEqualTo("token signature invalid");
    }

    @Test
    void shouldRefuseAClientCertificateOfAnotherCa() {
        var stack = SystemStack.get();
        ApiTls foreign = ApiTls.create(dir.resolve("foreign-ca"));
        Kubectl impostor =
                Kubectl.withCertificate(stack.apiHttpsUrl(), stack.apiTls().pem(), foreign.client("kubectl-it"), dir);

        Kubectl.Run run = impostor.run("get", "nodepools");

        assertThat(run.exit()).as(run.out() + run.err()).isNotZero();
        assertThat(run.out()).doesNotContain("NAME");
    }
}
