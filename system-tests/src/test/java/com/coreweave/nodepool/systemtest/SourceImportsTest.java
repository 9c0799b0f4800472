package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No package cycle within a module, read from the sources' imports: the compiler inlines a constant into the class that
 * uses it, so a bytecode check ({@link LayeringTest}) cannot see an import that only reads one.
 */
class SourceImportsTest {

    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?([\\w.]+)(?:\\.\\*)?;");
    private static final String BASE = "com.coreweave.nodepool.";

    @Test
    void noModuleHasAPackageCycleInItsImports() throws IOException {
        Path root = Path.of(System.getProperty("stack.project-root", ".."))
                .toAbsolutePath()
                .normalize();
        Map<String, Set<String>> imports = new TreeMap<>();
        for (String module : LayeringTest.MODULES) {
            try (Stream<Path> files = Files.walk(root.resolve(module).resolve("src/main/java"))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> read(f, imports));
            }
        }
        assertThat(imports).containsKey(BASE + "kit.auth");
        assertThat(cycles(imports)).as("package cycles").isEmpty();
    }

    @Test
    void aCycleThroughAnImportedConstantIsFound() {
        Map<String, Set<String>> imports = Map.of(
                BASE + "kit.auth", Set.of(BASE + "kit.reads"),
                BASE + "kit.reads", Set.of(BASE + "kit.tenancy"),
                BASE + "kit.tenancy", Set.of(BASE + "kit.auth"),
                BASE + "kit.rest", Set.of());

        assertThat(cycles(imports))
                .containsExactly(List.of(BASE + "kit.auth", BASE + "kit.reads", BASE + "kit.tenancy"));
    }

    private static void read(Path file, Map<String, Set<String>> imports) {
        String source;
        try {
            source = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher pkg = PACKAGE.matcher(source);
        if (!pkg.find()) {
            return;
        }
        Set<String> to = imports.computeIfAbsent(pkg.group(1), k -> new TreeSet<>());
        Matcher imported = IMPORT.matcher(source);
        while (imported.find()) {
            String target = packageOf(imported.group(1));
            if (target.startsWith(BASE) && !target.equals(pkg.group(1)) && sameModule(pkg.group(1), target)) {
                to.add(target);
            }
        }
    }

    /** The package of an imported name: the segments before its first upper-case one (a class, then members). */
    private static String packageOf(String name) {
        List<String> segments = new ArrayList<>();
        for (String segment : name.split("\\.")) {
            if (Character.isUpperCase(segment.charAt(0))) {
                break;
            }
            segments.add(segment);
        }
        return String.join(".", segments);
    }

    private static boolean sameModule(String from, String to) {
        return from.split("\\.")[3].equals(to.split("\\.")[3]);
    }

    /** The strongly connected groups of more than one package (Tarjan's), each sorted. */
    static List<List<String>> cycles(Map<String, Set<String>> imports) {
        return new Cycles(imports).find();
    }

    private static final class Cycles {
        private final Map<String, Set<String>> imports;
        private final Map<String, Integer> index = new TreeMap<>();
        private final Map<String, Integer> low = new TreeMap<>();
        private final List<String> stack = new ArrayList<>();
        private final List<List<String>> found = new ArrayList<>();

        Cycles(Map<String, Set<String>> imports) {
            this.imports = imports;
        }

        List<List<String>> find() {
            new TreeSet<>(imports.keySet()).forEach(p -> {
                if (!index.containsKey(p)) {
                    visit(p);
                }
            });
            return found;
        }

        private void visit(String p) {
            index.put(p, index.size());
            low.put(p, index.get(p));
            stack.add(p);
            for (String q : imports.getOrDefault(p, Set.of())) {
                if (!index.containsKey(q)) {
                    visit(q);
                    low.put(p, Math.min(low.get(p), low.get(q)));
                } else if (stack.contains(q)) {
                    low.put(p, Math.min(low.get(p), index.get(q)));
                }
            }
            if (low.get(p).equals(index.get(p))) {
                List<String> group = new ArrayList<>();
                String q;
                do {
                    q = stack.remove(stack.size() - 1);
                    group.add(q);
                } while (!q.equals(p));
                if (group.size() > 1) {
                    found.add(group.stream().sorted().toList());
                }
            }
        }
    }
}
