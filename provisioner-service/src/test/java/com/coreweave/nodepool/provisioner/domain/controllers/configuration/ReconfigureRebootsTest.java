package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.controllers.configuration.ConfigurationControllerTest.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaults;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Reconfigure reboots: which nodes a request asks to reboot, how many reboot at once, and failed stagings. */
class ReconfigureRebootsTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration RETRY = Duration.ofSeconds(20);

    PoolDriver pool;

    /** A fleet that reboots {@code concurrent} nodes at once and fails stagings at {@code stagingFailureRate}. */
    static ProvisioningPolicy rebooting(int concurrent, double stagingFailureRate) {
        ProvisioningPolicy base = policy(BOOT);
        return new ProvisioningPolicy(
                        BOOT,
                        0.0,
                        0,
                        base.failingImages(),
                        3,
                        base.drainGrace(),
                        concurrent,
                        base.scaleUpAfter(),
                        base.scaleDownUnneededTime())
                .withFaults(new FleetFaults(0.0, 0.0, stagingFailureRate, RETRY));
    }

    static NodePoolSpec spec(int target, String driver) {
        return ConfigurationControllerTest.spec(target, driver, NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE);
    }

    /** A registered pool of {@code target} nodes whose spec then changed, so every node runs an outdated config. */
    void outdated(ProvisioningPolicy policy, int target) {
        pool = new PoolDriver(policy);
        pool.spec(accepted(spec(target, "550"), 1));
        pool.grants(capacity(
                1, IntStream.rangeClosed(1, target).mapToObj(Fixtures::grant).toArray(Grant[]::new)));
        pool.tick(BOOT);
        pool.spec(accepted(spec(target, "560"), 2));
    }

    List<Integer> booting() {
        return IntStream.rangeClosed(1, pool.state.nodes().size())
                .filter(n -> pool.node(n).phase() == Node.Phase.Booting)
                .boxed()
                .toList();
    }

    @Test
    void shouldRebootOnlyTheOutdatedNodesTheRequestNames() {
        outdated(rebooting(3, 0.0), 3);

        pool.configuration(request("rc-1", Action.Reconfigure, null, machine(2)));

        assertThat(booting()).containsExactly(2);
        assertThat(pool.node(1).reconfigure()).isNull();
        assertThat(pool.node(3).reconfigure()).isNull();
        assertThat(pool.last.events())
                .extracting(RecordedEvent::reason, e -> e.involvedObject().name())
                .containsExactly(tuple("CWConfigStaged", machine(2)));
    }

    @Test
    void shouldRebootNoMoreNodesAtOnceThanMaxConcurrentReboots() {
        outdated(rebooting(2, 0.0), 3);

        pool.configuration(request("rc-1", Action.Reconfigure, null));

        assertThat(booting()).containsExactly(1, 2);
        assertThat(pool.node(3).reconfigure()).isEqualTo(PoolNode.Reconfigure.Requested);
        pool.tick(BOOT);
        assertThat(booting()).containsExactly(3);
        assertThat(pool.lastReasons())
                .containsExactly("CWReconfigureRebooted", "CWReconfigureRebooted", "CWConfigStaged");
    }

    @Test
    void shouldNotRebootANodeThatAlreadyRunsTheActiveConfiguration() {
        pool = new PoolDriver(rebooting(3, 0.0));
        pool.registered(Lifecycle.IDLE_ONLY, 2);

        pool.configuration(request("rc-1", Action.Reconfigure, null));

        assertThat(booting()).isEmpty();
        assertThat(pool.state.nodes().values())
                .extracting(PoolNode::reconfigure)
                .containsOnlyNulls();
        assertThat(pool.lastReasons()).doesNotContain("CWConfigStaged");
    }

    @Test
    void shouldKeepAHeldNodeOutOfTheRebootsUntilItsHoldIsLifted() {
        outdated(rebooting(3, 0.0), 3);
        pool.change(Fixtures.hold("hold-1", 2, true));

        pool.configuration(request("rc-1", Action.Reconfigure, null));
        assertThat(booting()).containsExactly(1, 3);
        assertThat(pool.messages("DisruptionBlocked"))
                .containsExactly("1 node(s) to reboot into configuration "
                        + pool.state.configs().active().nodeProfile()
                        + " are held by do-not-disrupt: " + machine(2)
                        + " (annotation compute.coreweave.com/do-not-disrupt=true).");

        pool.change(Fixtures.hold("hold-2", 2, false));
        assertThat(booting()).containsExactly(1, 2, 3);
    }

    @Test
    void shouldRetryAFailedStagingOnlyAtItsDueTimeAndReportTheLatestAttempt() {
        outdated(rebooting(1, 1.0), 1);

        pool.configuration(request("rc-1", Action.Reconfigure, null));
        assertThat(pool.lastReasons()).containsExactly("CWNodeConfigStagingFailed");
        assertThat(pool.summary().stagingError()).contains(machine(1), "attempt 1", "retrying in 20s");

        pool.tick(RETRY.minusSeconds(1));
        assertThat(pool.lastReasons()).isEmpty();

        pool.tick(Duration.ofSeconds(1));
        assertThat(pool.lastReasons()).containsExactly("CWNodeConfigStagingFailed");
        assertThat(pool.summary().stagingError()).contains("attempt 2");
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);
        assertThat(ReconfigureReboots.retrying(pool.node(1))).isTrue();
    }

    @Test
    void shouldForgetTheRebootOfANodeThatStartedLeaving() {
        outdated(rebooting(1, 0.0), 2);
        pool.report(activity(2, true, 60));
        pool.configuration(request("rc-1", Action.Reconfigure, null, machine(2)));
        assertThat(pool.node(2).reconfigure())
                .as("a busy node waits to be idle")
                .isEqualTo(PoolNode.Reconfigure.Requested);

        int before = pool.events.size();

        pool.deleteNode(2);
        pool.report(activity(2, false, null));

        assertThat(pool.node(2).leaving()).isTrue();
        assertThat(pool.node(2).reconfigure()).isNull();
        pool.tick(RepairPolicy.DEFAULTS.prepareForTerminate());
        assertThat(pool.events.subList(before, pool.events.size()))
                .extracting(RecordedEvent::reason)
                .doesNotContain("CWConfigStaged", "CWReconfigureRebooted")
                .contains("CWNodeDeleted");
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);
    }
}
