package com.coreweave.nodepool.deploycheck;

import com.coreweave.nodepool.deploycheck.Manifests.Manifest;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The deployment of deploy/kubernetes as read by {@link Manifests}: the base (kubectl apply -k deploy/kubernetes) and
 * each org's onboarding (orgs/&lt;org&gt;).
 */
final class Deployment {

    /** deploy/, set by the module's pom; the default fits a run from the module's folder. */
    static final Path DEPLOY = Path.of(System.getProperty("deploy.dir", "../deploy"));

    static final Path KUBERNETES = DEPLOY.resolve("kubernetes");
    static final Path ORGS = KUBERNETES.resolve("orgs");

    /** The ConfigMap every service takes its environment from. */
    static final String SETTINGS = "nodepool-settings";

    private static List<Manifest> base;

    private Deployment() {}

    /** Every document of the base: deploy/kubernetes without orgs/. */
    static synchronized List<Manifest> base() {
        if (base == null) {
            base = Manifests.under(KUBERNETES).stream()
                    .filter(m -> !m.file().startsWith(ORGS))
                    .toList();
        }
        return base;
    }

    /** Every org's onboarding documents, by the org's folder name. */
    static Map<String, List<Manifest>> orgs() {
        try (Stream<Path> folders = Files.list(ORGS)) {
            Map<String, List<Manifest>> orgs = new TreeMap<>();
            folders.filter(Files::isDirectory)
                    .forEach(folder -> orgs.put(folder.getFileName().toString(), Manifests.under(folder)));
            return orgs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A value of the shared settings (ConfigMap {@value #SETTINGS}). */
    static String setting(String name) {
        String value =
                Manifests.named(base(), ConfigMap.class, SETTINGS).getData().get(name);
        if (value == null) {
            throw new AssertionError("ConfigMap " + SETTINGS + " has no " + name);
        }
        return value;
    }

    /**
     * The environment a StatefulSet's (only) container starts with, as far as the manifests say: its ConfigMaps'
     * entries, then its own variables with a value (those from a Secret or a field are null here).
     */
    static Map<String, String> environment(StatefulSet set) {
        Container container = container(set);
        Map<String, String> environment = new LinkedHashMap<>();
        for (EnvFromSource from : container.getEnvFrom()) {
            String configMap = from.getConfigMapRef().getName();
            environment.putAll(
                    Manifests.named(base(), ConfigMap.class, configMap).getData());
        }
        for (EnvVar variable : container.getEnv()) {
            environment.put(variable.getName(), variable.getValue());
        }
        return environment;
    }

    /** The one container of a service's pods. */
    static Container container(StatefulSet set) {
        List<Container> containers = set.getSpec().getTemplate().getSpec().getContainers();
        if (containers.size() != 1) {
            throw new AssertionError(set.getMetadata().getName() + " has " + containers.size() + " containers, not 1");
        }
        return containers.get(0);
    }
}
