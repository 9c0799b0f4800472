package com.coreweave.nodepool.api.rest;

import static com.coreweave.nodepool.api.domain.Fixtures.manifest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.coreweave.nodepool.api.domain.ManifestValidator.FieldValidation;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Status;
import jakarta.ws.rs.core.MediaType;
import org.junit.jupiter.api.Test;

class ManifestBodyTest {

    @Test
    void aYamlManifestReadByTheOneReaderIsCheckedAndBound() {
        var tree = RequestBody.tree("""
        apiVersion: compute.coreweave.com/v1alpha1
        kind: NodePool
        metadata: {name: example-nodepool}
        spec: {instanceType: gd-8xa100-i128, targetNodes: 1}
        """, new MediaType("application", "yaml"), ManifestBody.MANIFEST);

        NodePool pool = ManifestBody.bind(ManifestBody.checked(tree, "example-nodepool", FieldValidation.Strict)
                .manifest());
        assertThat(pool.name()).isEqualTo("example-nodepool");
    }

    @Test
    void anInvalidManifestIsA422OfItsCauses() {
        ObjectNode bad = manifest();
        ((ObjectNode) bad.get("spec")).put("targetNodes", -1);

        Status status = refusal(() -> ManifestBody.checked(bad, null, FieldValidation.Strict));
        assertThat(status.getCode()).isEqualTo(422);
        assertThat(status.getDetails().getCauses())
                .anySatisfy(c -> assertThat(c.getField()).isEqualTo("spec.targetNodes"));
    }

    @Test
    void aNameOtherThanThePathsIsA400() {
        Status status = refusal(() -> ManifestBody.checked(manifest(), "other", FieldValidation.Strict));

        assertThat(status.getCode()).isEqualTo(400);
        assertThat(status.getMessage()).contains("does not match the name in the path \"other\"");
    }

    @Test
    void noBodyIsA400ExpectingAManifest() {
        Status status = refusal(() -> RequestBody.tree("", ManifestBody.MANIFEST));

        assertThat(status.getMessage()).isEqualTo("the request body is empty; expected a NodePool manifest");
    }

    private static Status refusal(Runnable call) {
        Throwable thrown = catchThrowable(call::run);
        assertThat(thrown).isInstanceOf(ApiException.class);
        return ((ApiException) thrown).status();
    }
}
