package dev.limiter.internal.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.limiter.Algorithm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The assembly of the scripts from their fragments; that the assembled scripts decide as the twins do
 * is for limiter-redis' agreement tests, which run them in Redis.
 */
class ScriptsTests {

    private static final String ASSEMBLY = "/dev/limiter/internal/algorithm/assembly/";

    @Test
    void includesRelativeAndAbsoluteNamesIndentedAsTheirLine() {
        assertThat(Scripts.assemble(ASSEMBLY + "outer.lua", Algorithm.GCRA))
            .isEqualTo("-- outer\nif x then\n  a = 1\n\n  b = 2\nend\nc = 3\nreturn x\n");
    }

    @Test
    void refusesAnIncludeCycleAndAMissingFragment() {
        assertThatIllegalStateException().isThrownBy(() -> Scripts.assemble(ASSEMBLY + "loop.lua", Algorithm.GCRA))
            .withMessageContaining("includes itself");
        assertThatIllegalStateException().isThrownBy(() -> Scripts.assemble(ASSEMBLY + "missing.lua", Algorithm.GCRA))
            .withMessageContaining(ASSEMBLY + "absent.lua is missing");
    }

    /** One path for one limit, one for several: each includes the verdict, the report and the reply once. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aDecisionScriptHasEachRuleOnceInSourceAndOncePerPathAssembled(Algorithm algorithm) {
        String script = Scripts.decision(algorithm);
        assertThat(script).doesNotContainPattern("(?m)^\\s*--@include").startsWith("-- " + algorithm.configName() + ":");
        assertThat(occurrences(script, "local allowed, wait, retry_after = false, 0, 0\n")).isEqualTo(2);
        assertThat(occurrences(script, "if reported == 0 or remaining < lowest then\n")).isEqualTo(2);
        assertThat(occurrences(script, "return {allowed and 1 or 0, reported, (lowest > 0) and lowest or 0")).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundScriptReportsAsADecisionDoes(Algorithm algorithm) {
        String script = Scripts.refund(algorithm);
        assertThat(script).doesNotContainPattern("(?m)^\\s*--@include").startsWith("-- " + algorithm.configName() + " refund:");
        assertThat(occurrences(script, "if reported == 0 or remaining < lowest then\n")).isEqualTo(1);
        assertThat(occurrences(script, "return {allowed and 1 or 0, reported, (lowest > 0) and lowest or 0")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aChargeScriptRunsTheAlgorithmsOwnDecision(Algorithm algorithm) {
        String script = Scripts.charge(algorithm);
        assertThat(script).doesNotContainPattern("(?m)^\\s*--@include").startsWith("-- charge:");
        // The decision script, whole, as the body of decide(KEYS, ARGV).
        assertThat(script).contains(Scripts.decision(algorithm).lines().map((line) -> line.isEmpty() ? "" : "  " + line)
            .reduce("", (a, b) -> a + b + "\n"));
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}
