package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.junit.jupiter.api.Test;

/** Every listener hears a failed settlement, in order, as each hears decisions. */
class CompositeDecisionListenerTests {

    @Test
    void everyListenerHearsAFailedSettlement() {
        List<String> heard = new CopyOnWriteArrayList<>();
        DecisionListener composite = CompositeDecisionListener.of(List.of(new Recording("first", heard), new Recording("second", heard)));
        RateLimiter limiter = new InMemoryRateLimiterFactory().create("tokens", RateLimiterConfig.of(dev.limiter.Algorithm.GCRA,
                LimitSpec.of(10, Duration.ofSeconds(1))));
        composite.onSettleFailed(limiter, new IllegalStateException("no"));
        assertThat(heard).containsExactly("first tokens no", "second tokens no");
    }

    private record Recording(String name, List<String> heard) implements DecisionListener {

        @Override
        public void onDecision(DecisionEvent event) {
        }

        @Override
        public void onSettleFailed(RateLimiter limiter, RuntimeException failure) {
            heard.add(name + " " + limiter.name() + " " + failure.getMessage());
        }
    }
}
