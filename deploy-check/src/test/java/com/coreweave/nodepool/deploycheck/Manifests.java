package com.coreweave.nodepool.deploycheck;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The manifests of a folder, every YAML document read into the typed Kubernetes (fabric8) or Strimzi model of its kind,
 * refusing what that kind does not have: an unknown or misspelt field, a value of the wrong type, a duplicate key.
 * Kustomizations are kept as trees (there is no typed model of them here).
 */
final class Manifests {

    /** One YAML document: where it is, as written, and as its kind's model class. */
    record Manifest(Path file, int document, JsonNode tree, HasMetadata object) {

        String kind() {
            return tree.path("kind").asText();
        }

        String name() {
            return object.getMetadata().getName();
        }

        @Override
        public String toString() {
            return file.getFileName() + "#" + document + " " + kind() + " " + (object == null ? "" : name());
        }
    }

    /** The kinds the deployment uses, by apiVersion and kind. A kind not listed is refused: add its model here. */
    private static final Map<String, Class<? extends HasMetadata>> MODELS = Map.of(
            "v1/Namespace", Namespace.class,
            "v1/ConfigMap", ConfigMap.class,
            "v1/Service", Service.class,
            "apps/v1/StatefulSet", StatefulSet.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class,
            "kafka.strimzi.io/v1beta2/Kafka", Kafka.class,
            "kafka.strimzi.io/v1beta2/KafkaNodePool", KafkaNodePool.class,
            "kafka.strimzi.io/v1beta2/KafkaTopic", KafkaTopic.class,
            "kafka.strimzi.io/v1beta2/KafkaUser", KafkaUser.class);

    static final String KUSTOMIZATION = "kustomize.config.k8s.io/v1beta1/Kustomization";

    /**
     * Reads as strictly as the API server would: unknown fields fail (the models' {@code @JsonAnySetter}, which would
     * keep them in {@code additionalProperties}, is taken away), and so do a string where a number belongs and a key
     * given twice.
     */
    private static final ObjectMapper STRICT = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .addModule(new SimpleModule().setDeserializerModifier(new BeanDeserializerModifier() {
                @Override
                public BeanDeserializerBuilder updateBuilder(
                        DeserializationConfig config, BeanDescription description, BeanDeserializerBuilder builder) {
                    builder.setAnySetter(null);
                    return builder;
                }
            }))
            .build();

    /**
     * Writes a model back with every value it holds: the models leave out values equal to their defaults
     * ({@code @JsonInclude}), which would look lost.
     */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .annotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public JsonInclude.Value findPropertyInclusion(Annotated annotated) {
                    return JsonInclude.Value.empty();
                }
            })
            .defaultPropertyInclusion(
                    JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
            .build();

    private Manifests() {}

    /** Every document of every {@code .yaml} file under {@code folder}, in file order. */
    static List<Manifest> under(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            List<Manifest> manifests = new ArrayList<>();
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                manifests.addAll(read(file, Files.readString(file)));
            }
            return manifests;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The documents of one YAML text; {@code file} only names where they came from. */
    static List<Manifest> read(Path file, String yaml) throws IOException {
        List<Manifest> manifests = new ArrayList<>();
        try (JsonParser parser = STRICT.getFactory().createParser(yaml)) {
            Iterator<JsonNode> documents = STRICT.readValues(parser, JsonNode.class);
            int index = 0;
            while (documents.hasNext()) {
                JsonNode tree = documents.next();
                if (tree != null && !tree.isEmpty()) {
                    manifests.add(typed(file, index, tree));
                }
                index++;
            }
        }
        return manifests;
    }

    private static Manifest typed(Path file, int document, JsonNode tree) throws IOException {
        String type = tree.path("apiVersion").asText() + "/" + tree.path("kind").asText();
        if (type.equals(KUSTOMIZATION)) {
            return new Manifest(file, document, tree, null);
        }
        Class<? extends HasMetadata> model = MODELS.get(type);
        if (model == null) {
            throw new IllegalArgumentException(file + "#" + document + ": no model for " + type + "; known: "
                    + MODELS.keySet().stream().sorted().toList());
        }
        HasMetadata object;
        try {
            object = STRICT.treeToValue(tree, model);
        } catch (JsonMappingException e) {
            throw new IllegalArgumentException(
                    file + "#" + document + " (" + type + "): " + e.getOriginalMessage() + " at "
                            + e.getPathReference(),
                    e);
        }
        List<String> lost = new ArrayList<>();
        lostFields("", tree, JSON.valueToTree(object), lost);
        if (!lost.isEmpty()) {
            throw new IllegalArgumentException(
                    file + "#" + document + " (" + type + "): the model kept no value for " + String.join(", ", lost));
        }
        return new Manifest(file, document, tree, object);
    }

    /**
     * Adds to {@code lost} each field of {@code written} that the model, written back, does not hold: a field some
     * model ignores rather than refuses, or a value it turned into another. Empty lists and objects count as absent.
     */
    private static void lostFields(String path, JsonNode written, JsonNode kept, List<String> lost) {
        if (written.isContainerNode() && written.isEmpty() && (kept.isMissingNode() || kept.isEmpty())) {
            return;
        }
        if (written.isObject() && kept.isObject()) {
            written.properties()
                    .forEach(e -> lostFields(path + "." + e.getKey(), e.getValue(), kept.path(e.getKey()), lost));
        } else if (written.isArray() && kept.isArray() && written.size() == kept.size()) {
            for (int i = 0; i < written.size(); i++) {
                lostFields(path + "[" + i + "]", written.get(i), kept.get(i), lost);
            }
        } else if (!sameValue(written, kept)) {
            lost.add(path.substring(1) + " (written " + written + ", kept " + kept + ")");
        }
    }

    private static boolean sameValue(JsonNode written, JsonNode kept) {
        if (written.isNumber() && kept.isNumber()) {
            return written.decimalValue().compareTo(kept.decimalValue()) == 0;
        }
        return written.equals(kept);
    }

    /** The objects of {@code type} among {@code manifests}. */
    static <T extends HasMetadata> List<T> all(List<Manifest> manifests, Class<T> type) {
        return manifests.stream()
                .map(Manifest::object)
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }

    /** The one object of {@code type} named {@code name}; fails if there is none. */
    static <T extends HasMetadata> T named(List<Manifest> manifests, Class<T> type, String name) {
        return all(manifests, type).stream()
                .filter(o -> o.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name));
    }
}
