package com.coreweave.nodepool.systemtest;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order the system-test classes are handed to the parallel executor: first the classes of the two stacks whose
 * classes run one at a time (the disruption stack's, the suite's longest path, so its stack is the first to start; then
 * the fault stack's); then the shared stack's; the classes with stacks of their own last, so that they do not all start
 * a stack at once at the beginning. Configured in this module's pom.
 */
public final class ClassesByStack implements ClassOrderer {

    private static final List<String> ORDER = List.of(StackUse.DISRUPTION, StackUse.FAULTS, StackUse.SHARED);

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors()
                .sort(Comparator.comparingInt(ClassesByStack::rank)
                        .thenComparing(descriptor -> descriptor.getTestClass().getSimpleName()));
    }

    private static int rank(ClassDescriptor descriptor) {
        String lock = StackUse.lockOf(descriptor.getTestClass());
        return lock == null ? ORDER.size() : ORDER.indexOf(lock);
    }
}
