package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.limiter.Algorithm;
import dev.limiter.internal.algorithm.Scripts;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.script.DigestUtils;

/**
 * The scripts the Redis limiters send are those {@link Scripts} assembles, and the batch and lease
 * scripts run each algorithm's by the index and name the Java side gives it; that they decide as the
 * twins do is for the agreement tests, which run them in Redis.
 */
class LuaScriptTests {

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decisionAndRefundAreTheAssembledScripts(Algorithm algorithm) {
        LuaScript decision = LuaScript.of(algorithm);
        assertThat(decision.getScriptAsString()).isEqualTo(Scripts.decision(algorithm));
        assertThat(decision.getSha1()).isEqualTo(DigestUtils.sha1DigestAsHex(Scripts.decision(algorithm)));
        assertThat(LuaScript.refundOf(algorithm).getScriptAsString()).isEqualTo(Scripts.refund(algorithm));
        assertThat(LuaScript.chargeOf(algorithm).getScriptAsString()).isEqualTo(Scripts.charge(algorithm));
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theBatchRunsEachAlgorithmByItsIndex(Algorithm algorithm) {
        String batch = LuaScript.batch().getScriptAsString();
        assertThat(batch).doesNotContainPattern("(?m)^\\s*--@include")
            .contains("algorithms[" + LuaScript.of(algorithm).batchIndex() + "] = function(KEYS, ARGV)\n  -- " + algorithm.configName() + ": ")
            .contains(indented(Scripts.decision(algorithm)));
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theLeaseRunsItsBucketAlgorithm(Algorithm algorithm) {
        if (!algorithm.isBucket()) {
            assertThatIllegalArgumentException().isThrownBy(() -> LeaseScript.of(algorithm));
            return;
        }
        assertThat(LeaseScript.of(algorithm).getScriptAsString()).doesNotContainPattern("(?m)^\\s*--@include")
            .contains("local algorithm = function(KEYS, ARGV)\n" + indented(Scripts.decision(algorithm)) + "end\n");
    }

    /** {@code script} as included one level deep: each line but empty ones indented by two spaces. */
    private static String indented(String script) {
        return script.replaceAll("(?m)^(?=.)", "  ");
    }
}
