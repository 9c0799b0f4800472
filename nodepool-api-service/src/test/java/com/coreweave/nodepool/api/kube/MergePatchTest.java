package com.coreweave.nodepool.api.kube;

import static com.coreweave.nodepool.api.domain.Fixtures.anyJson;
import static com.coreweave.nodepool.api.domain.Fixtures.json;
import static com.coreweave.nodepool.api.domain.Fixtures.manifest;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MergePatchTest {

    /** Every example of RFC 7386, Appendix A: original, patch, result. */
    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "{\"a\":\"b\"}                  | {\"a\":\"c\"}                      | {\"a\":\"c\"}",
                "{\"a\":\"b\"}                  | {\"b\":\"c\"}                      | {\"a\":\"b\",\"b\":\"c\"}",
                "{\"a\":\"b\"}                  | {\"a\":null}                       | {}",
                "{\"a\":\"b\",\"b\":\"c\"}      | {\"a\":null}                       | {\"b\":\"c\"}",
                "{\"a\":[\"b\"]}                | {\"a\":\"c\"}                      | {\"a\":\"c\"}",
                "{\"a\":\"c\"}                  | {\"a\":[\"b\"]}                    | {\"a\":[\"b\"]}",
                "{\"a\":{\"b\":\"c\"}}          | {\"a\":{\"b\":\"d\",\"c\":null}}   | {\"a\":{\"b\":\"d\"}}",
                "{\"a\":[{\"b\":\"c\"}]}        | {\"a\":[1]}                        | {\"a\":[1]}",
                "[\"a\",\"b\"]                  | [\"c\",\"d\"]                      | [\"c\",\"d\"]",
                "{\"a\":\"b\"}                  | [\"c\"]                            | [\"c\"]",
                "{\"a\":\"foo\"}                | null                               | null",
                "{\"a\":\"foo\"}                | \"bar\"                            | \"bar\"",
                "{\"e\":null}                   | {\"a\":1}                          | {\"e\":null,\"a\":1}",
                "[1,2]                          | {\"a\":\"b\",\"c\":null}           | {\"a\":\"b\"}",
                "{}                             | {\"a\":{\"bb\":{\"ccc\":null}}}    | {\"a\":{\"bb\":{}}}",
            })
    void appliesEveryExampleOfRfc7386(String original, String patch, String result) {
        assertThat(MergePatch.apply(anyJson(original), anyJson(patch))).isEqualTo(anyJson(result));
    }

    @Test
    void aPatchOfNothingLeavesTheTargetAsItWas() {
        assertThat(MergePatch.apply(manifest(), json("{}"))).isEqualTo(manifest());
    }

    @Test
    void aPatchOntoNoTargetBuildsTheObject() {
        assertThat(MergePatch.apply(null, json("{\"spec\": {\"targetNodes\": 2, \"gpu\": null}}")))
                .isEqualTo(json("{\"spec\": {\"targetNodes\": 2}}"));
    }

    @Test
    void scalingAPoolChangesOnlyTargetNodes() {
        JsonNode patched = MergePatch.apply(manifest(), json("{\"spec\": {\"targetNodes\": 4}}"));

        ObjectNode expected = manifest();
        ((ObjectNode) expected.get("spec")).put("targetNodes", 4);
        assertThat(patched).isEqualTo(expected);
    }

    @Test
    void aNullRemovesOneLabelAndKeepsTheOthers() {
        ObjectNode labelled = manifest();
        ((ObjectNode) labelled.get("metadata"))
                .putObject("labels")
                .put("team", "ml")
                .put("env", "prod");

        JsonNode patched = MergePatch.apply(
                labelled, json("{\"metadata\": {\"labels\": {\"env\": null, \"tier\": " + "\"gpu\"}}}"));

        assertThat(patched.at("/metadata/labels")).isEqualTo(json("{\"team\": \"ml\", \"tier\": \"gpu\"}"));
        assertThat(patched.at("/metadata/name").textValue()).isEqualTo("example-nodepool");
    }

    @Test
    void taintsAreReplacedAsAWholeList() {
        ObjectNode tainted = manifest();
        ((ObjectNode) tainted.get("spec"))
                .set(
                        "nodeTaints",
                        anyJson(
                                "[{\"key\": \"a\", \"effect\": \"NoSchedule\"}, {\"key\": \"b\", \"effect\": \"NoExecute\"}]"));

        JsonNode patched = MergePatch.apply(
                tainted, json("{\"spec\": {\"nodeTaints\": [{\"key\": \"c\", \"effect\": " + "\"NoSchedule\"}]}}"));

        assertThat(patched.at("/spec/nodeTaints")).isEqualTo(anyJson("[{\"key\": \"c\", \"effect\": \"NoSchedule\"}]"));
    }

    @Test
    void neitherTheTargetNorThePatchIsModified() {
        ObjectNode target = json("{\"a\": {\"b\": 1, \"c\": [1, 2]}, \"d\": \"x\"}");
        ObjectNode patch = json("{\"a\": {\"b\": null, \"e\": {\"f\": 2}}, \"d\": null}");

        JsonNode result = MergePatch.apply(target, patch);
        ((ObjectNode) result.get("a")).put("mutated", true);
        ((ObjectNode) result.at("/a/e")).put("mutated", true);

        assertThat(target).isEqualTo(json("{\"a\": {\"b\": 1, \"c\": [1, 2]}, \"d\": \"x\"}"));
        assertThat(patch).isEqualTo(json("{\"a\": {\"b\": null, \"e\": {\"f\": 2}}, \"d\": null}"));
    }
}
