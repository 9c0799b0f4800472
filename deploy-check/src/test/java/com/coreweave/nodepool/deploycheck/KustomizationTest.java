package com.coreweave.nodepool.deploycheck;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.deploycheck.Manifests.Manifest;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@code kubectl apply -k} applies what the folder holds: no manifest left out, none listed that is missing. */
class KustomizationTest {

    @Test
    void theBaseAppliesEveryManifestOfItsFolderButTheOrgs() throws IOException {
        assertThat(resources(Deployment.KUBERNETES))
                .containsExactlyInAnyOrderElementsOf(manifestFiles(Deployment.KUBERNETES));
        assertThat(namespace(Deployment.KUBERNETES)).isEqualTo("nodepool");
    }

    @Test
    void eachOrgAppliesItsOwnManifestsInTheSameNamespace() throws IOException {
        assertThat(Deployment.orgs()).isNotEmpty();
        for (String org : Deployment.orgs().keySet()) {
            Path folder = Deployment.ORGS.resolve(org);
            assertThat(resources(folder)).as(org).containsExactlyInAnyOrderElementsOf(manifestFiles(folder));
            assertThat(namespace(folder)).as(org).isEqualTo(namespace(Deployment.KUBERNETES));
        }
    }

    @Test
    void theImageOfEveryServiceIsOneTheKustomizationSets() throws IOException {
        List<String> images = new ArrayList<>();
        kustomization(Deployment.KUBERNETES)
                .path("images")
                .forEach(i -> images.add(i.path("name").asText()));

        assertThat(Manifests.all(Deployment.base(), StatefulSet.class))
                .isNotEmpty()
                .allSatisfy(set -> assertThat(images)
                        .contains(Deployment.container(set).getImage().replaceAll(":[^:/]*$", "")));
    }

    private static JsonNode kustomization(Path folder) throws IOException {
        List<Manifest> read = Manifests.read(
                folder.resolve("kustomization.yaml"), Files.readString(folder.resolve("kustomization.yaml")));
        assertThat(read).hasSize(1);
        return read.get(0).tree();
    }

    private static List<String> resources(Path folder) throws IOException {
        List<String> resources = new ArrayList<>();
        kustomization(folder).path("resources").forEach(r -> resources.add(r.asText()));
        return resources;
    }

    private static String namespace(Path folder) throws IOException {
        return kustomization(folder).path("namespace").asText();
    }

    /** The YAML files under {@code folder}, relative to it, but the kustomization and the org folders below it. */
    private static List<String> manifestFiles(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(f -> f.toString().endsWith(".yaml"))
                    .filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
                    .filter(f -> !f.startsWith(Deployment.ORGS) || folder.startsWith(Deployment.ORGS))
                    .map(f -> folder.relativize(f).toString())
                    .toList();
        }
    }
}
