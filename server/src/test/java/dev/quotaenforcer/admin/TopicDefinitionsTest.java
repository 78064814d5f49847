package dev.quotaenforcer.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.RepositoryFiles;
import dev.quotaenforcer.plan.PlanParser;
import dev.quotaenforcer.topology.Topics;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The topic definitions of topics/: complete, consistent with the topology, and with valid seed plans. */
class TopicDefinitionsTest {

    @Test
    void declaresExactlyTheTopicsTheApplicationUses() {
        Set<String> declared = TopicDefinitions.bundled().topics().stream().map(TopicDefinition::name).collect(Collectors.toSet());

        assertEquals(Set.copyOf(Topics.withPrefix("quota").names()), declared);
    }

    @Test
    void compactsThePlanAndKeyTopics() {
        TopicDefinitions definitions = TopicDefinitions.bundled();
        for (String topic : new String[] {"quota.plans", "quota.api-keys", "quota.plan-catalog", "quota.key-catalog"}) {
            assertEquals("compact", definitions.topic(topic).configs().get("cleanup.policy"), topic);
        }
    }

    @Test
    void seedPlansAreValidAndEverySeedKeyNamesASeedPlan() throws Exception {
        TopicDefinitions definitions = TopicDefinitions.bundled();
        PlanParser parser = new PlanParser();
        Set<String> plans = new HashSet<>();
        for (Map.Entry<String, byte[]> plan : definitions.seedPlans().entrySet()) {
            plans.add(parser.parsePlan(null, plan.getValue()).id());
        }
        assertTrue(plans.containsAll(Set.of("free", "pro")), "sample plans " + plans);
        assertTrue(plans.containsAll(definitions.seedApiKeys().values()), "seed keys name only seed plans");
    }

    @Test
    void prefixRenamesEveryTopicAsTheTopologyDoes() {
        Set<String> renamed = TopicDefinitions.bundled().withPrefix("billing").topics().stream()
                .map(TopicDefinition::name).collect(Collectors.toSet());

        assertEquals(Set.copyOf(Topics.withPrefix("billing").names()), renamed);
    }

    @Test
    void theDirectoryInTheRepositoryIsTheOneInTheJar() {
        TopicDefinitions fromDirectory = TopicDefinitions.load(RepositoryFiles.path("topics"));

        assertEquals(TopicDefinitions.bundled().topics(), fromDirectory.topics());
        assertEquals(TopicDefinitions.bundled().seedApiKeys(), fromDirectory.seedApiKeys());
    }
}
