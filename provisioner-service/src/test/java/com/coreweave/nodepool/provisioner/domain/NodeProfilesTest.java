package com.coreweave.nodepool.provisioner.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.resource.Gpu;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import org.junit.jupiter.api.Test;

class NodeProfilesTest {

  static NodePoolSpec boots(Image image, Gpu gpu) {
    var s = Fixtures.spec(1);
    return new NodePoolSpec(s.computeClass(), s.instanceType(), 1, null, null, s.nodeLabels(), null, null, image, gpu,
        false, s.lifecycle(), null, s.region());
  }

  @Test
  void aProfileIsNpAndEightHexDigitsFixedByWhatTheNodeBootsWith() {
    String profile = NodeProfiles.of(boots(null, new Gpu("550")));

    assertThat(profile).matches("np-[0-9a-f]{8}").isEqualTo(NodeProfiles.of(boots(null, new Gpu("550"))));
    assertThat(NodeProfiles.of(boots(null, new Gpu("560")))).isNotEqualTo(profile);
    assertThat(NodeProfiles.of(boots(null, null))).isNotEqualTo(profile);
  }

  @Test
  void theImageWinsOverTheGpuDriverAndItsReleaseTrainCounts() {
    Image stable = new Image(null, "ncore-image-v2.10.1", Image.STABLE);

    assertThat(NodeProfiles.of(boots(stable, new Gpu("550")))).isEqualTo(NodeProfiles.of(boots(stable, null)));
    assertThat(NodeProfiles.of(boots(new Image(null, null, Image.LATEST), null)))
        .isNotEqualTo(NodeProfiles.of(boots(new Image(null, null, Image.STABLE), null)));
  }

  @Test
  void labelsAndTargetDoNotChangeTheProfile() {
    assertThat(NodeProfiles.of(Fixtures.spec(1))).isEqualTo(NodeProfiles.of(Fixtures.spec(7)));
  }
}
