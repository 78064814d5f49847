package dev.quotaenforcer;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Holds the architecture's lines: the decision logic knows nothing of Kafka or of the clock; the gateway client only of events. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.quotaenforcer");

    private static final String[] PURE = {
            "dev.quotaenforcer.limit..", "dev.quotaenforcer.plan..", "dev.quotaenforcer.engine..", "dev.quotaenforcer.event.."};

    @Test
    void decisionLogicHasNoKafkaImport() {
        noClasses().that().resideInAnyPackage(PURE)
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..")
                .check(MAIN);
    }

    @Test
    void decisionLogicNeverReadsTheClock() {
        noClasses().that().resideInAnyPackage(PURE)
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(java.time.Instant.class, "now")
                .check(MAIN);
    }

    @Test
    void algorithmsDependOnNothingButTheJdk() {
        noClasses().that().resideInAPackage("dev.quotaenforcer.limit..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.quotaenforcer.plan..", "dev.quotaenforcer.engine..", "dev.quotaenforcer.event..",
                        "dev.quotaenforcer.topology..", "com.fasterxml..")
                .check(MAIN);
    }

    @Test
    void gatewayClientKnowsNoKafkaStreamsAndNoProjectPackageButEvents() {
        noClasses().that().resideInAPackage("dev.quotaenforcer.client..")
                .should().dependOnClassesThat(resideInAPackage("org.apache.kafka.streams..")
                        .or(resideInAPackage("dev.quotaenforcer..")
                                .and(not(resideInAnyPackage("dev.quotaenforcer.event..", "dev.quotaenforcer.client..")))))
                .check(MAIN);
    }
}
