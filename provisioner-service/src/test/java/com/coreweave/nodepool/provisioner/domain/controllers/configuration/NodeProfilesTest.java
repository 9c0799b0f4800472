package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfig;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.resource.Gpu;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeProfilesTest {

    static final NodeReleases R = NodeReleases.INITIAL;

    static NodePoolSpec boots(Image image, Gpu gpu) {
        var s = Fixtures.spec(1);
        return new NodePoolSpec(
                s.computeClass(),
                s.instanceType(),
                1,
                null,
                null,
                s.nodeLabels(),
                null,
                null,
                image,
                gpu,
                false,
                s.lifecycle(),
                null,
                s.region());
    }

    static String profile(NodePoolSpec spec) {
        return NodeProfiles.of(spec, R);
    }

    @Test
    void aProfileIsNpAndEightHexDigitsFixedByWhatTheNodeBootsWith() {
        String profile = profile(boots(null, new Gpu("550")));

        assertThat(profile).matches("np-[0-9a-f]{8}").isEqualTo(profile(boots(null, new Gpu("550"))));
        assertThat(profile(boots(null, new Gpu("560")))).isNotEqualTo(profile);
        assertThat(profile(boots(null, null))).isNotEqualTo(profile);
    }

    @Test
    void theImageWinsOverTheGpuDriverAndItsReleaseTrainCounts() {
        Image stable = new Image(null, "ncore-image-v2.10.1", Image.STABLE);

        assertThat(profile(boots(stable, new Gpu("550")))).isEqualTo(profile(boots(stable, null)));
        assertThat(profile(boots(new Image(null, null, Image.LATEST), null)))
                .isNotEqualTo(profile(boots(new Image(null, null, Image.STABLE), null)));
    }

    @Test
    void labelsAndTargetDoNotChangeTheProfile() {
        assertThat(profile(Fixtures.spec(1))).isEqualTo(profile(Fixtures.spec(7)));
    }

    @Test
    void aReleaseOfThePoolsTrainChangesItsProfileButNotThatOfAPinnedImageOrAnotherTrain() {
        NodeReleases next = R.with(
                new NodeReleasePublished(Image.STABLE, "2026.12.0", List.of("ncore image 2026.12.0"), Instant.EPOCH));
        NodePoolSpec gpu = boots(null, new Gpu("550"));
        NodePoolSpec pinned = boots(new Image(null, "ncore-image-v2.10.1", Image.STABLE), null);
        NodePoolSpec latest = boots(new Image(null, null, Image.LATEST), null);

        assertThat(NodeProfiles.of(gpu, next)).isNotEqualTo(NodeProfiles.of(gpu, R));
        assertThat(NodeProfiles.of(pinned, next)).isEqualTo(NodeProfiles.of(pinned, R));
        assertThat(NodeProfiles.of(latest, next)).isEqualTo(NodeProfiles.of(latest, R));
        assertThat(NodeProfiles.train(pinned)).isNull();
    }

    @Test
    void theSummarySaysWhatTheNodesBoot() {
        NodeConfig config =
                NodeProfiles.configure(boots(new Image("6.8.0-custom", null, Image.LATEST), null), R, Fixtures.T0);

        assertThat(config.summary())
                .containsExactly(
                        "release train latest: 2026.11.1",
                        "ncore image 2026.11.1",
                        "Kubernetes v1.32.2",
                        "kernel 6.8.0-custom");
        assertThat(NodeProfiles.configure(boots(null, new Gpu("550")), R, Fixtures.T0)
                        .summary())
                .contains("GPU driver 550");
    }
}
