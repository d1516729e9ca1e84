package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Scripts sent straight to a plain template's connection decide as the template's own script
 * executor does; a template subclass keeps its own {@code execute}.
 */
@RedisTest
class BlockingScriptsTests {

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    final VirtualClock clock = new VirtualClock();

    @Test
    void theDirectPathAndTheTemplatesScriptExecutorDecideAlike() {
        StringRedisTemplate template = TestRedisSupport.shared();
        CountingTemplate executor = new CountingTemplate(template);
        String prefix = TestRedisSupport.uniquePrefix();
        for (Algorithm algorithm : Algorithm.values()) {
            RateLimiter direct = RedisRateLimiterFactory.builder(template).keyPrefix(prefix + "d").clock(clock).build().create("orders", algorithm, FIVE_PER_10S);
            RateLimiter through = RedisRateLimiterFactory.builder(executor).keyPrefix(prefix + "t").clock(clock).build().create("orders", algorithm, FIVE_PER_10S);
            List<Decision> directly = new ArrayList<>();
            List<Decision> executed = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                directly.add(direct.tryAcquire("k", (i % 3 == 2) ? 2 : 1));
                executed.add(through.tryAcquire("k", (i % 3 == 2) ? 2 : 1));
                clock.advance(Duration.ofMillis(700));
            }
            assertThat(directly).as(algorithm.name()).isEqualTo(executed);
            assertThat(directly).extracting(Decision::source).containsOnly(DecisionSource.REDIS);
            assertThat(direct.quota("k")).as(algorithm.name()).isEqualTo(through.quota("k"));
        }
        // The subclass's execute ran every call through it: 8 decisions and a quota per algorithm.
        assertThat(executor.scripts).isEqualTo(9 * Algorithm.values().length);
    }

    @Test
    void onlyTheTemplatesAsShippedGoStraightToTheConnection() {
        StringRedisTemplate template = TestRedisSupport.shared();
        assertThat(new BlockingScripts(template)).hasToString("BlockingScripts[" + template + ", direct]");
        CountingTemplate subclass = new CountingTemplate(template);
        assertThat(new BlockingScripts(subclass)).hasToString("BlockingScripts[" + subclass + "]");
    }

    @Test
    void noScriptIsFoundAnywhereInTheCauseChain() {
        RuntimeException noScript = new RedisSystemException("Error in execution",
                new IllegalStateException("NOSCRIPT No matching script. Please use EVAL."));
        assertThat(BlockingScripts.isNoScript(noScript)).isTrue();
        assertThat(BlockingScripts.isNoScript(new RedisSystemException("Error in execution", new IllegalStateException("ERR busy")))).isFalse();
        assertThat(BlockingScripts.isNoScript(new InvalidDataAccessApiUsageException("no message cause"))).isFalse();
    }

    /** A template subclass that counts the scripts its own execute runs. */
    static final class CountingTemplate extends StringRedisTemplate {

        int scripts;

        CountingTemplate(StringRedisTemplate shared) {
            super(shared.getRequiredConnectionFactory());
        }

        @Override
        public <T> T execute(RedisScript<T> script, List<String> keys, Object... args) {
            scripts++;
            return super.execute(script, keys, args);
        }
    }
}
