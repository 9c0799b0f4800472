package com.coreweave.nodepool.systemtest;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers every module keeps: decision logic in {@code domain} packages is plain Java (no Kafka, Quarkus, CDI or
 * JAX-RS), the contracts in events-schema know nothing of the runtime, and no service imports another (they meet only
 * on topics). Reads the main classes every module of the reactor compiled before this one.
 */
class LayeringTest {

    /** The modules with main code, in reactor order. */
    static final List<String> MODULES = List.of(
            "events-schema",
            "service-kit",
            "nodepool-api-service",
            "quota-service",
            "capacity-service",
            "provisioner-service",
            "preemption-service");

    private static final String[] RUNTIME = {
        "org.apache.kafka..",
        "io.quarkus..",
        "io.smallrye..",
        "io.vertx..",
        "jakarta.ws.rs..",
        "jakarta.enterprise..",
        "jakarta.inject..",
        "org.jboss.resteasy.."
    };

    private static JavaClasses classes;

    @BeforeAll
    static void importModules() {
        Path root = Path.of(System.getProperty("stack.project-root", ".."))
                .toAbsolutePath()
                .normalize();
        List<Path> dirs = MODULES.stream()
                .map(m -> root.resolve(m).resolve("target/classes"))
                .toList();
        assertThat(dirs)
                .as("every module compiled first (the reactor builds system-tests last)")
                .allMatch(Files::isDirectory);
        classes = new ClassFileImporter().importPaths(dirs);
        assertThat(classes.containPackage("com.coreweave.nodepool.provisioner.domain"))
                .isTrue();
    }

    @Test
    void domainPackagesArePlainJava() {
        noClasses()
                .that()
                .resideInAPackage("com.coreweave.nodepool..domain..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RUNTIME)
                .because("decisions are values in, values out, tested without Kafka or Quarkus")
                .check(classes);
    }

    @Test
    void theContractsKnowNothingOfTheRuntime() {
        noClasses()
                .that()
                .resideInAPackage("com.coreweave.nodepool.schema..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RUNTIME)
                .orShould()
                .dependOnClassesThat()
                .resideInAPackage("com.coreweave.nodepool.kit..")
                .check(classes);
    }

    @Test
    void servicesDoNotImportEachOther() {
        slices().matching("com.coreweave.nodepool.(api|quota|capacity|provisioner|preemption)..")
                .should()
                .notDependOnEachOther()
                .because("services meet only on topics and REST")
                .check(classes);
    }

    @Test
    void kafkaInternalsStayBehindTheirFence() {
        noClasses()
                .that()
                .resideOutsideOfPackage("com.coreweave.nodepool.kit.streams.internals..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.kafka..internals..")
                .because("a Kafka upgrade may change its internals: kit.streams.internals holds every use, and "
                        + "StreamsInternalsContractTest checks them")
                .check(classes);
    }

    @Test
    void theKitImportsNoService() {
        noClasses()
                .that()
                .resideInAPackage("com.coreweave.nodepool.kit..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "com.coreweave.nodepool.api..",
                        "com.coreweave.nodepool.quota..",
                        "com.coreweave.nodepool.capacity..",
                        "com.coreweave.nodepool.provisioner..",
                        "com.coreweave.nodepool.preemption..")
                .because("every service builds on the kit, never the other way")
                .check(classes);
    }

    @Test
    void noModuleHasAPackageCycle() {
        for (String module : List.of("schema", "kit", "api", "quota", "capacity", "provisioner", "preemption")) {
            slices().matching("com.coreweave.nodepool." + module + ".(**)")
                    .should()
                    .beFreeOfCycles()
                    .because("a module's packages build on each other one way")
                    .check(classes);
        }
    }

    private static final String PROVISIONER_DOMAIN = "com.coreweave.nodepool.provisioner.domain";

    @Test
    void provisionerControllerFoldersDoNotImportEachOther() {
        slices().matching(PROVISIONER_DOMAIN + ".controllers.(*)..")
                .should()
                .notDependOnEachOther()
                .because("each concern is a room of its own: what two controllers share is in domain.model, "
                        + "domain.disruption or domain.fleet, and only the reconciler wires them in order")
                .check(classes);
    }

    @Test
    void whatProvisionerControllersShareImportsNoController() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        PROVISIONER_DOMAIN + ".model..",
                        PROVISIONER_DOMAIN + ".fleet..",
                        PROVISIONER_DOMAIN + ".disruption..",
                        PROVISIONER_DOMAIN + ".planner..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(PROVISIONER_DOMAIN, PROVISIONER_DOMAIN + ".controllers..")
                .because("the model, the fleet, the disruption mechanics and the demand planner are what the"
                        + " controllers build on, never the other way")
                .check(classes);
    }

    private static final List<String> SERVICES = List.of("api", "quota", "capacity", "provisioner", "preemption");

    /**
     * A layer's packages in every service ({@code rest}, {@code streams}, ...); service-kit's own ({@code kit.rest},
     * {@code kit.streams}) are helpers any layer may use within the other rules, so not one of them.
     */
    private static String[] ofEveryService(String... layers) {
        return SERVICES.stream()
                .flatMap(service -> Stream.of(layers).map(l -> "com.coreweave.nodepool." + service + "." + l + ".."))
                .toArray(String[]::new);
    }

    @Test
    void nothingDependsOnAServiceRestPackage() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "com.coreweave.nodepool..domain..",
                        "com.coreweave.nodepool..kube..",
                        "com.coreweave.nodepool..streams..",
                        "com.coreweave.nodepool..messaging..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ofEveryService("rest"))
                .because(
                        "REST is the outer layer: it calls the topology, the topics and the decisions, never the reverse")
                .check(classes);
    }

    @Test
    void decisionsKnowNothingOfStreamsOrMessaging() {
        noClasses()
                .that()
                .resideInAnyPackage("com.coreweave.nodepool..domain..", "com.coreweave.nodepool..kube..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ofEveryService("streams", "messaging"))
                .because("decisions know nothing of how records reach them")
                .check(classes);
    }

    @Test
    void theApiServicesKubernetesMachineryIsPlainJavaToo() {
        noClasses()
                .that()
                .resideInAPackage("com.coreweave.nodepool.api.kube..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RUNTIME)
                .because("selectors, patches, tables and discovery are values in, values out, as the domain is")
                .check(classes);
    }

    @Test
    void everyTopicIsReadThroughInputs() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName("com.coreweave.nodepool.kit.streams.io.Inputs")
                .should()
                .callMethodWhere(DescribedPredicate.describe(
                        "StreamsBuilder.stream",
                        call -> call.getTargetOwner().isEquivalentTo(StreamsBuilder.class)
                                && call.getName().equals("stream")))
                .because("Inputs is where every record is checked, dead-lettered with its reason and audited: a topic"
                        + " read around it would skip all three (InboundTopicsShapeTest)")
                .check(classes);
    }

    @Test
    void everyListAnswerIsPagedByListings() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName("com.coreweave.nodepool.api.rest.Listings")
                .should()
                .callMethodWhere(DescribedPredicate.describe(
                        "Lister.listOf",
                        call -> call.getTargetOwner().isAssignableTo("com.coreweave.nodepool.api.rest.Lister")
                                && call.getName().equals("listOf")
                                // The compiler's bridge of a covariant listOf calls the real one.
                                && !call.getOrigin().getModifiers().contains(JavaModifier.BRIDGE)))
                .because("Listings holds every list answer to the page bounds (PageBounds: objects and bytes, with"
                        + " continue): a list made around it would answer an org's every object at once")
                .check(classes);
    }
}
