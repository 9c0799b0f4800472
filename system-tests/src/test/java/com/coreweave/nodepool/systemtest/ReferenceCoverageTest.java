package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/reference-coverage.md names the code that produces each field, condition and event of the reference: every name
 * it gives in backticks that looks like code must still be in the source tree, so the table cannot point at a class or
 * method that was renamed or removed.
 *
 * <ul>
 *   <li>{@code Type.member} (and {@code Type.Nested.member}, {@code Type.component.component}): the type is declared in
 *       some module's sources, and the member is declared in its file (a method, a field, a record component, an enum
 *       constant or a nested type); what follows a member is declared somewhere in the tree;
 *   <li>a bare {@code TypeName} or {@code methodName} (camel case): a word of the sources or of a module's
 *       configuration (a type, a member, an enum constant, a string literal such as a condition's reason, an alert
 *       catalogue's condition), so a name gone from the code fails.
 * </ul>
 */
class ReferenceCoverageTest {

    private static final Path ROOT = Path.of(System.getProperty("stack.project-root", ".."))
            .toAbsolutePath()
            .normalize();
    private static final Pattern SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern DOTTED = Pattern.compile("[A-Z]\\w*(\\.[A-Za-z_]\\w*)+");
    private static final Pattern CAMEL = Pattern.compile("[A-Z]\\w*|[a-z]+[A-Z]\\w*");
    private static final Pattern TYPE = Pattern.compile("\\b(?:class|record|enum|interface)\\s+([A-Z]\\w*)");
    private static final Pattern WORD = Pattern.compile("[A-Za-z_]\\w*");
    /** A lower-case name: a method, a field, a value; it must be a word of the sources or configuration too. */
    private static final Pattern LOWER = Pattern.compile("[a-z][a-z0-9]*");
    /** Words that precede a call, never a declaration. */
    private static final Set<String> NOT_A_TYPE = Set.of("return", "new", "throw", "else", "case", "yield", "assert");

    /** Each type declared in a module's main or test sources, with the files that declare it. */
    private static final Map<String, List<String>> TYPES = new HashMap<>();
    /** Each test class's sources, without comments, by its simple name. */
    private static final Map<String, List<String>> TESTS = new HashMap<>();
    /** Every word of those sources, string literals' words included. */
    private static final Set<String> WORDS = new HashSet<>();

    private static String all = "";

    @BeforeAll
    static void readSources() throws IOException {
        StringBuilder everything = new StringBuilder();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(p ->
                            !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .filter(p -> !p.endsWith("ReferenceCoverageTest.java"))
                    .forEach(p -> {
                        String path = p.toString();
                        boolean java = path.endsWith(".java")
                                && (path.contains("/src/main/java/") || path.contains("/src/test/java/"));
                        // Words that only configuration holds, such as the alert catalogue's condition names.
                        boolean config = path.contains("/src/main/resources/")
                                && (path.endsWith(".yaml") || path.endsWith(".properties"));
                        if (!java && !config) {
                            return;
                        }
                        // A name only a comment mentions does not exist: comments are dropped, strings kept.
                        String source = java ? SourceText.withoutComments(read(p)) : read(p);
                        if (java && path.contains("/src/test/java/")) {
                            TESTS.computeIfAbsent(
                                            p.getFileName().toString().replace(".java", ""), t -> new ArrayList<>())
                                    .add(source);
                        }
                        Matcher words = WORD.matcher(source);
                        while (words.find()) {
                            WORDS.add(words.group());
                        }
                        if (!java) {
                            return;
                        }
                        everything.append(source).append('\n');
                        Matcher types = TYPE.matcher(source);
                        while (types.find()) {
                            TYPES.computeIfAbsent(types.group(1), t -> new ArrayList<>())
                                    .add(source);
                        }
                    });
        }
        all = everything.toString();
    }

    @Test
    void everyCodeNameInTheCoverageTableExistsInTheSources() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/reference-coverage.md"));
        Set<String> missing = new LinkedHashSet<>();
        Set<String> checked = new LinkedHashSet<>();
        Matcher spans = SPAN.matcher(doc);
        while (spans.find()) {
            String span = spans.group(1).trim();
            if (DOTTED.matcher(span).matches()) {
                checked.add(span);
                if (!resolves(span.split("\\."))) {
                    missing.add(span);
                }
            } else if (CAMEL.matcher(span).matches() || LOWER.matcher(span).matches()) {
                checked.add(span);
                if (!WORDS.contains(span)) {
                    missing.add(span);
                }
            }
        }

        assertThat(checked).as("the table names code").hasSizeGreaterThan(100);
        assertThat(missing)
                .as("names in docs/reference-coverage.md that are not in the sources")
                .isEmpty();
    }

    @Test
    void everyTestAnEventRowCreditsNamesTheEventItAsserts() throws IOException {
        List<String> unasserted = new ArrayList<>();
        int credited = 0;
        for (String row : Files.readAllLines(ROOT.resolve("docs/reference-coverage.md"))) {
            String[] cells = row.split("\\|", -1);
            // An event row: | `reason` | Normal or Warning | where | trigger | pinned by |
            if (cells.length != 7 || !cells[2].trim().matches("Normal|Warning")) {
                continue;
            }
            Matcher reason = SPAN.matcher(cells[1]);
            if (!reason.find()) {
                continue;
            }
            String event = reason.group(1);
            Matcher tests = Pattern.compile("`(\\w+(?:Test|IT))`").matcher(cells[5]);
            while (tests.find()) {
                credited++;
                boolean asserts = TESTS.getOrDefault(tests.group(1), List.of()).stream()
                        .anyMatch(source -> asserts(source, event));
                if (!asserts) {
                    unasserted.add(event + " in " + tests.group(1));
                }
            }
        }

        assertThat(credited).as("the events table credits tests").isGreaterThan(60);
        assertThat(unasserted)
                .as("tests the events table credits with an event they never name as a string")
                .isEmpty();
    }

    @Test
    void aNameThatIsNotInTheSourcesIsFound() {
        assertThat(resolves("StatusProjector.atTarget".split("\\."))).isTrue();
        assertThat(resolves("StatusProjector.Counts.of".split("\\."))).isFalse();
        assertThat(resolves("PoolProcessor.revalidate".split("\\.")))
                .as("called there, declared elsewhere")
                .isFalse();
        assertThat(resolves("NodePoolReconciled.pool.generation".split("\\."))).isTrue();
        assertThat(WORDS).doesNotContain("PoolRouter");
        assertThat(resolves("CapacityLedger.queue".split("\\.")))
                .as("called there (ledger.queue()), named in a comment, declared elsewhere")
                .isFalse();
        assertThat(WORDS).as("a lower-case name").doesNotContain("reclass");
    }

    /**
     * Whether a test's source asserts {@code event}: names it as a string (tests compare reasons so), or uses its
     * {@code CwEvent} constant in an assertion. A constant elsewhere is an input the test feeds, not what it asserts.
     */
    private static boolean asserts(String source, String event) {
        return source.lines()
                .anyMatch(line -> line.contains("\"" + event)
                        || line.contains(event + "\"")
                        || line.contains("'" + event + "'")
                        || line.contains("CwEvent." + event)
                                && Stream.of("assert", "contains", "isEqualTo", "hasItem")
                                        .anyMatch(line::contains));
    }

    /** Whether {@code parts[0]} is a type whose file declares {@code parts[1]} (and so on, as described above). */
    private static boolean resolves(String[] parts) {
        for (String source : TYPES.getOrDefault(parts[0], List.of())) {
            String scope = source;
            int i = 1;
            while (i < parts.length && declaresType(scope, parts[i])) {
                i++;
            }
            if (i == parts.length) {
                return true;
            }
            if (!declaresMember(scope, parts[i])) {
                continue;
            }
            boolean rest = true;
            for (int j = i + 1; j < parts.length; j++) {
                rest &= declaresMember(all, parts[j]);
            }
            if (rest) {
                return true;
            }
        }
        return false;
    }

    private static boolean declaresType(String source, String name) {
        return Pattern.compile("\\b(?:class|record|enum|interface)\\s+" + name + "\\b")
                .matcher(source)
                .find();
    }

    /**
     * Whether {@code source} declares {@code name}: a method (with a body or abstract), a field (with a modifier, or at
     * a class's indentation), a record component or an enum constant. A call ({@code x.name(...)}, {@code return
     * name(...)}) and a local variable are not declarations.
     */
    private static boolean declaresMember(String source, String name) {
        String n = Pattern.quote(name);
        Matcher methods = Pattern.compile(
                        "([\\w<>\\[\\],.?]+)\\s+" + n + "\\s*\\([^;{]*\\)\\s*(throws [\\w.,\\s]+)?[{;]")
                .matcher(source);
        while (methods.find()) {
            if (!NOT_A_TYPE.contains(methods.group(1))) {
                return true;
            }
        }
        return Pattern.compile("(?m)^\\s*(?:(?:public|protected|private|static|final|volatile|transient)\\s+)+"
                                + "[\\w<>\\[\\],.?]+(?:\\s*<[^;=]*>)?\\s+" + n + "\\s*[=;]")
                        .matcher(source)
                        .find()
                || Pattern.compile("(?m)^ {4}[\\w<>\\[\\],.?]+\\s+" + n + "\\s*[=;]")
                        .matcher(source)
                        .find()
                || recordComponent(source, name)
                || Character.isUpperCase(name.charAt(0))
                        && Pattern.compile("(?m)^\\s*" + n + "\\s*[(,;]")
                                .matcher(source)
                                .find()
                || declaresType(source, name);
    }

    /** Whether a record header of {@code source} has a component {@code name}. */
    private static boolean recordComponent(String source, String name) {
        Matcher headers = Pattern.compile(
                        "\\brecord\\s+\\w+\\s*(?:<[^>]*>)?\\s*\\(([^{]*?)\\)\\s*(?:implements[^{]*)?\\{")
                .matcher(source);
        Pattern component = Pattern.compile("[\\w>\\]]\\s+" + Pattern.quote(name) + "\\s*(,|$)");
        while (headers.find()) {
            if (component.matcher(headers.group(1).trim()).find()) {
                return true;
            }
        }
        return false;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
