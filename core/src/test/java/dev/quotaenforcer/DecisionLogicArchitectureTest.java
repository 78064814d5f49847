package dev.quotaenforcer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Holds the decision logic's lines within core: nothing of Kafka (core's pom allows only Jackson, too) or of
 * the clock, and algorithms that know nothing but the JDK.
 */
class DecisionLogicArchitectureTest {

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
}
