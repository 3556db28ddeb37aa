package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class GeneratedSharedPrefixTest {

    private static List<Conversation> generate(GeneratedSharedPrefix.Shape shape) {
        return new GeneratedSharedPrefix(shape).conversations().toList();
    }

    private static String group(Conversation c) {
        return c.id().substring(0, c.id().lastIndexOf('-'));
    }

    @Test
    void theDefaultShapeIs64GroupsOf16OneTurnRequests() {
        List<Conversation> conversations = generate(GeneratedSharedPrefix.Shape.DEFAULT);

        Map<String, List<Conversation>> groups = conversations.stream()
                .collect(Collectors.groupingBy(GeneratedSharedPrefixTest::group));
        assertThat(conversations).hasSize(1024).allSatisfy(c -> assertThat(c.turns()).hasSize(1));
        assertThat(groups).hasSize(64).allSatisfy((g, members) -> assertThat(members).hasSize(16));
    }

    @Test
    void eachGroupSharesOne2048TokenSystemPromptAndEachRequestHasA128TokenQuestion() {
        List<Conversation> conversations = generate(GeneratedSharedPrefix.Shape.DEFAULT);

        Map<String, Set<String>> promptsPerGroup = conversations.stream().collect(Collectors.groupingBy(
                GeneratedSharedPrefixTest::group, Collectors.mapping(Conversation::systemPrompt, Collectors.toSet())));
        assertThat(promptsPerGroup.values()).allSatisfy(prompts -> assertThat(prompts).singleElement()
                .satisfies(p -> assertThat(p).hasSize(2048 * 4)));
        assertThat(promptsPerGroup.values().stream().flatMap(Set::stream).distinct()).hasSize(64);
        assertThat(conversations).allSatisfy(c -> {
            assertThat(c.turns().getFirst().userText()).hasSize(128 * 4);
            assertThat(c.turns().getFirst().maxOutputTokens()).isEqualTo(256);
        });
    }

    @Test
    void theSameSeedGivesIdenticalRequestsAndAnotherSeedDifferentOnes() {
        GeneratedSharedPrefix.Shape shape = new GeneratedSharedPrefix.Shape(4, 3, 64, 8, 16, 10.0, true, 5);
        GeneratedSharedPrefix.Shape reseeded = new GeneratedSharedPrefix.Shape(4, 3, 64, 8, 16, 10.0, true, 6);

        assertThat(generate(shape)).isEqualTo(generate(shape));
        assertThat(generate(shape)).isNotEqualTo(generate(reseeded));
    }

    @Test
    void withoutShufflingRequestsComeGroupAfterGroupAllAtOnce() {
        List<Conversation> conversations =
                generate(new GeneratedSharedPrefix.Shape(2, 2, 8, 4, 4, Double.POSITIVE_INFINITY, false, 1));

        assertThat(conversations).extracting(Conversation::id).containsExactly("gsp-0-0", "gsp-0-1", "gsp-1-0", "gsp-1-1");
        assertThat(conversations).extracting(Conversation::startMicros).containsOnly(0L);
    }

    @Test
    void aFiniteRateSpreadsStartsByAPoissonProcess() {
        List<Conversation> conversations =
                generate(new GeneratedSharedPrefix.Shape(8, 16, 8, 4, 4, 100.0, true, 1));

        List<Long> starts = conversations.stream().map(Conversation::startMicros).toList();
        assertThat(starts).isSorted();
        // 128 requests at 100/s last about 1.27 s.
        assertThat(starts.getLast()).isBetween(900_000L, 1_700_000L);
    }
}
