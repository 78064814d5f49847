package dev.quotaenforcer.client;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Holds the gateway client's line: of the project it knows only the events (client's pom keeps Kafka Streams,
 * the broker and logging bindings off its class path, too).
 */
class ClientArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.quotaenforcer");

    @Test
    void gatewayClientKnowsNoKafkaStreamsAndNoProjectPackageButEvents() {
        noClasses().that().resideInAPackage("dev.quotaenforcer.client..")
                .should().dependOnClassesThat(resideInAPackage("org.apache.kafka.streams..")
                        .or(resideInAPackage("dev.quotaenforcer..")
                                .and(not(resideInAnyPackage("dev.quotaenforcer.event..", "dev.quotaenforcer.client..")))))
                .check(MAIN);
    }
}
