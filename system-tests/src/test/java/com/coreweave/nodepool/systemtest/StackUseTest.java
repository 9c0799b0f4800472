package com.coreweave.nodepool.systemtest;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.lang.annotation.Annotation;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The system tests run several classes at a time, so a class that says nothing of how it uses the stacks could kill a
 * service under another's feet: every {@code *IT} names exactly one {@link StackUse}.
 */
class StackUseTest {

    private static final List<Class<? extends Annotation>> USES =
            List.of(StackUse.Shares.class, StackUse.Disrupts.class, StackUse.Faults.class, StackUse.Own.class);

    @Test
    void everySystemTestClassSaysHowItUsesTheStacks() throws URISyntaxException {
        // This module's test classes only: scanning the package across the whole classpath takes seconds.
        Path testClasses = Path.of(StackUseTest.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        JavaClasses tests = new ClassFileImporter().importPath(testClasses);
        assertThat(tests.stream().filter(StackUseTest::systemTest))
                .as("the system-test classes found")
                .hasSizeGreaterThan(20);

        classes()
                .that()
                .haveSimpleNameEndingWith("IT")
                .and()
                .areTopLevelClasses()
                .should(new ArchCondition<>("name exactly one StackUse") {
                    @Override
                    public void check(JavaClass item, ConditionEvents events) {
                        long named = USES.stream().filter(item::isAnnotatedWith).count();
                        if (named != 1) {
                            events.add(SimpleConditionEvent.violated(
                                    item, item.getSimpleName() + " names " + named + " StackUse annotations"));
                        }
                    }
                })
                .check(tests);
    }

    private static boolean systemTest(JavaClass c) {
        return c.getSimpleName().endsWith("IT") && c.isTopLevelClass();
    }
}
