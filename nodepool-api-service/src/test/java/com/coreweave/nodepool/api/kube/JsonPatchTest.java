package com.coreweave.nodepool.api.kube;

import static com.coreweave.nodepool.api.domain.Fixtures.anyJson;
import static com.coreweave.nodepool.api.domain.Fixtures.manifest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonPatchTest {

    /** Every example of RFC 6902, Appendix A, that applies: document, patch, result. */
    @ParameterizedTest(name = "A.{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "1  | {\"foo\":\"bar\"} | [{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]"
                        + " | {\"baz\":\"qux\",\"foo\":\"bar\"}",
                "2  | {\"foo\":[\"bar\",\"baz\"]} | [{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]"
                        + " | {\"foo\":[\"bar\",\"qux\",\"baz\"]}",
                "3  | {\"baz\":\"qux\",\"foo\":\"bar\"} | [{\"op\":\"remove\",\"path\":\"/baz\"}] | {\"foo\":\"bar\"}",
                "4  | {\"foo\":[\"bar\",\"qux\",\"baz\"]} | [{\"op\":\"remove\",\"path\":\"/foo/1\"}]"
                        + " | {\"foo\":[\"bar\",\"baz\"]}",
                "5  | {\"baz\":\"qux\",\"foo\":\"bar\"} | [{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]"
                        + " | {\"baz\":\"boo\",\"foo\":\"bar\"}",
                "6  | {\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}"
                        + " | [{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]"
                        + " | {\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}",
                "7  | {\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}"
                        + " | [{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]"
                        + " | {\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}",
                "8  | {\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}"
                        + " | [{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
                        + "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]"
                        + " | {\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
                "10 | {\"foo\":\"bar\"} | [{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]"
                        + " | {\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}",
                "11 | {\"foo\":\"bar\"} | [{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]"
                        + " | {\"foo\":\"bar\",\"baz\":\"qux\"}",
                "14 | {\"/\":9,\"~1\":10} | [{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}] | {\"/\":9,\"~1\":10}",
                "16 | {\"foo\":[\"bar\"]} | [{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]"
                        + " | {\"foo\":[\"bar\",[\"abc\",\"def\"]]}",
            })
    void appliesEveryExampleOfRfc6902(String example, String document, String patch, String result) {
        assertThat(JsonPatch.apply(anyJson(document), anyJson(patch))).isEqualTo(anyJson(result));
    }

    /** The examples of RFC 6902, Appendix A, that must fail, and what a missing path says (as before). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "A.9  | {\"baz\":\"qux\"} | [{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]"
                        + " | operation 0 (test /baz): the value at /baz is not \"bar\"",
                "A.12 | {\"foo\":\"bar\"} | [{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]"
                        + " | operation 0 (add /baz/bat): no value at /baz",
                "A.13 | {\"foo\":\"bar\"} | [{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"op\":\"remove\"}]"
                        + " | operation 0 (remove /baz): no value at /baz",
                "A.15 | {\"/\":9,\"~1\":10} | [{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]"
                        + " | operation 0 (test /~01): the value at /~01 is not \"10\"",
                "remove missing | {\"a\":1} | [{\"op\":\"remove\",\"path\":\"/b\"}] | operation 0 (remove /b): no value at /b",
                "replace missing | {\"a\":[1]} | [{\"op\":\"replace\",\"path\":\"/a/1\",\"value\":2}]"
                        + " | operation 0 (replace /a/1): no value at /a/1",
                "move missing | {\"a\":1} | [{\"op\":\"move\",\"from\":\"/b\",\"path\":\"/c\"}]"
                        + " | operation 0 (move from /b /c): no value at /b",
                "index past the end | {\"a\":[1]} | [{\"op\":\"add\",\"path\":\"/a/2\",\"value\":2}]"
                        + " | operation 0 (add /a/2): no list index 2 at /a/2",
                "leading zero | {\"a\":[1,2]} | [{\"op\":\"remove\",\"path\":\"/a/01\"}]"
                        + " | operation 0 (remove /a/01): no value at /a/01",
                "not a pointer | {\"a\":1} | [{\"op\":\"remove\",\"path\":\"a\"}]"
                        + " | operation 0 (remove a): \"a\" is not a JSON pointer: it must be empty or start with /",
                "bad escape | {\"a\":1} | [{\"op\":\"remove\",\"path\":\"/a~2\"}]"
                        + " | operation 0 (remove /a~2): \"/a~2\" is not a JSON pointer: ~ must be followed by 0 or 1",
                "unknown op | {\"a\":1} | [{\"op\":\"merge\",\"path\":\"/a\"}]"
                        + " | operation 0 (merge /a): \"op\" must be one of add, remove, replace, move, copy, test",
                "no value | {\"a\":1} | [{\"op\":\"add\",\"path\":\"/b\"}] | operation 0 (add /b): \"value\" is required",
                "no path | {\"a\":1} | [{\"op\":\"remove\"}] | operation 0 (remove): \"path\" is required and must be a string",
                "whole document | {\"a\":1} | [{\"op\":\"remove\",\"path\":\"\"}]"
                        + " | operation 0 (remove \"\"): the whole document cannot be removed",
            })
    void refusesWhatCannotApplyAndSaysWhy(String name, String document, String patch, String message) {
        assertThatThrownBy(() -> JsonPatch.apply(anyJson(document), anyJson(patch)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void numbersAreEqualByValueAndTheWholeDocumentCanBeReplaced() {
        assertThat(JsonPatch.apply(
                        anyJson("{\"a\":1}"),
                        anyJson("[{\"op\":\"test\",\"path\":\"/a\",\"value\":1.0},"
                                + "{\"op\":\"replace\",\"path\":\"\",\"value\":[1]}]")))
                .isEqualTo(anyJson("[1]"));
    }

    @Test
    void aFailingOperationLeavesTheTargetAsItWas() {
        ObjectNode target = manifest();

        assertThatThrownBy(() -> JsonPatch.apply(
                        target,
                        anyJson("[{\"op\":\"replace\",\"path\":\"/spec/targetNodes\","
                                + "\"value\":5},{\"op\":\"remove\",\"path\":\"/spec/gpu\"}]")))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(target).isEqualTo(manifest());
    }

    @Test
    void aReplacedMemberKeepsItsPlace() {
        JsonNode patched = JsonPatch.apply(
                anyJson("{\"a\":1,\"b\":2,\"c\":3}"), anyJson("[{\"op\":\"replace\",\"path\":\"/b\",\"value\":20}]"));

        assertThat(patched.toString()).isEqualTo("{\"a\":1,\"b\":20,\"c\":3}");
    }

    /**
     * Issue 25's request: an add of 60 KB, then 30 copies of the map into itself, doubling it each time (13 s, then
     * OutOfMemoryError for every org). A copy into the value it copies is refused at once.
     */
    @Test
    void theCopyBombOfIssue25IsRefusedAtOnce() {
        ArrayNode bomb = Json.mapper().createArrayNode();
        bomb.addObject().put("op", "add").put("path", "/metadata/annotations/a").put("value", "x".repeat(60 * 1024));
        for (int i = 0; i < 30; i++) {
            bomb.addObject()
                    .put("op", "copy")
                    .put("from", "/metadata/annotations")
                    .put("path", "/metadata/annotations/x" + i);
        }
        ObjectNode target = manifest();
        ((ObjectNode) target.get("metadata")).putObject("annotations");

        Throwable refused = null;
        for (int run = 1; run <= 5; run++) {
            long started = System.nanoTime();
            refused = catchThrowable(() -> JsonPatch.apply(target, bomb));
            System.out.printf(
                    "the 31-operation patch bomb refused in %.1f ms (run %d)%n",
                    (System.nanoTime() - started) / 1e6, run);
        }

        assertThat(refused)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operation 1 (copy from /metadata/annotations /metadata/annotations/x0): \"path\" "
                        + "/metadata/annotations/x0 is inside \"from\" /metadata/annotations: a value cannot be copied or moved "
                        + "into itself");
    }

    @Test
    void aValueCannotBeMovedIntoItselfEither() {
        assertThatThrownBy(() -> JsonPatch.apply(
                        anyJson("{\"a\":{\"b\":1}}"),
                        anyJson("[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b/c\"}]")))
                .hasMessageContaining("a value cannot be copied or moved into itself");
        assertThat(JsonPatch.apply(
                        anyJson("{\"a\":{\"b\":1}}"),
                        anyJson("[{\"op\":\"move\",\"from\":\"/a\"," + "\"path\":\"/a\"}]")))
                .as("a move onto itself changes nothing")
                .isEqualTo(anyJson("{\"a\":{\"b\":1}}"));
    }

    /** Copies that do not nest still amplify: 60 KB copied side by side stops once 1 MiB has been copied. */
    @Test
    void copiesStopAtTheirAccumulatedBound() {
        ArrayNode patch = Json.mapper().createArrayNode();
        patch.addObject().put("op", "add").put("path", "/a").put("value", "x".repeat(60 * 1024));
        long perCopy = 60 * 1024 + 2;
        int allowed = (int) (Limits.MAX_JSON_PATCH_COPIED_BYTES / perCopy);
        for (int i = 0; i < allowed; i++) {
            patch.addObject().put("op", "copy").put("from", "/a").put("path", "/c" + i);
        }
        assertThat(JsonPatch.apply(anyJson("{}"), patch).size()).isEqualTo(allowed + 1);

        patch.addObject().put("op", "copy").put("from", "/a").put("path", "/one-more");
        assertThatThrownBy(() -> JsonPatch.apply(anyJson("{}"), patch))
                .hasMessage("operation " + (allowed + 1)
                        + " (copy from /a /one-more): a JSON patch may copy or move at most "
                        + "1048576 bytes of JSON in total");
    }

    @Test
    void aPatchHasAtMostTenThousandOperations() {
        ArrayNode patch = Json.mapper().createArrayNode();
        for (int i = 0; i < Limits.MAX_JSON_PATCH_OPERATIONS; i++) {
            patch.addObject().put("op", "test").put("path", "/a").put("value", 1);
        }
        assertThat(JsonPatch.apply(anyJson("{\"a\":1}"), patch)).isEqualTo(anyJson("{\"a\":1}"));

        patch.addObject().put("op", "test").put("path", "/a").put("value", 1);
        assertThatThrownBy(() -> JsonPatch.apply(anyJson("{\"a\":1}"), patch))
                .hasMessage("a JSON patch may have at most 10000 operations, this one has 10001");
    }
}
