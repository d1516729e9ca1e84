package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.junit.jupiter.api.Test;

/** One limiter per name: registering twice must not create a second, unshared limit. */
class RateLimiterRegistryTests {

    static final LimitSpec SPEC = LimitSpec.of(5, Duration.ofSeconds(10));

    final AtomicInteger created = new AtomicInteger();

    final InMemoryRateLimiterFactory memory = InMemoryRateLimiterFactory.builder().clock(() -> 1_700_000_000_000_000L).maxKeys(100).build();

    final RateLimiterRegistry registry = new RateLimiterRegistry(new RateLimiterFactory() {

        @Override
        public RateLimiter create(String name, RateLimiterConfig config) {
            created.incrementAndGet();
            return memory.create(name, config);
        }

        @Override
        public RateLimiter create(String name, String plan, RateLimiterConfig config) {
            created.incrementAndGet();
            return memory.create(name, plan, config);
        }
    });

    @Test
    void sameRegistrationReturnsTheSameInstance() {
        RateLimiter first = registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC);
        RateLimiter second = registry.register("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofMillis(10_000)));
        assertThat(second).isSameAs(first);
        assertThat(created).hasValue(1);
        assertThat(registry.get("orders")).isSameAs(first);
        assertThat(registry.find("orders")).containsSame(first);
        assertThat(registry.limiters()).containsExactly(first);
    }

    @Test
    void conflictingRegistrationIsAnIllegalState() {
        RateLimiter orders = registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC);
        assertThatThrownBy(() -> registry.register("orders", Algorithm.FIXED_WINDOW, SPEC))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("orders");
        assertThatThrownBy(() -> registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC.withBurst(8)))
            .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> registry.register("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(6, Duration.ofSeconds(10))))
            .isInstanceOf(IllegalStateException.class);
        assertThat(registry.get("orders")).as("the first registration stays").isSameAs(orders);
    }

    @Test
    void aRetunedLimiterStaysTheOneRegisteredAndExpectsItsNewConfiguration() {
        RateLimiter orders = registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC);
        RateLimiterConfig wider = RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, LimitSpec.of(8, Duration.ofSeconds(10)));
        Retuning retuning = registry.retune("orders", wider);
        assertThat(retuning).isEqualTo(new Retuning("orders", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC), wider));
        assertThat(orders.config()).isEqualTo(wider);
        assertThat(registry.register("orders", wider)).isSameAs(orders);
        assertThatThrownBy(() -> registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> registry.retune("nope", wider)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders");
        assertThat(created).hasValue(1);
    }

    @Test
    void aLimiterThatCannotBeRetunedSaysSo() {
        RateLimiter custom = new RateLimiterRegistry((name, config) -> new RateLimiter() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public RateLimiterConfig config() {
                return config;
            }

            @Override
            public Decision tryAcquire(String key, long permits) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Quota quota(String key) {
                throw new UnsupportedOperationException();
            }
        }).register("custom", Algorithm.GCRA, SPEC);
        assertThatThrownBy(() -> custom.retune(RateLimiterConfig.of(Algorithm.GCRA, SPEC))).isInstanceOf(UnsupportedOperationException.class)
            .hasMessageContaining("cannot be retuned");
    }

    @Test
    void differentNamesAreDifferentLimiters() {
        RateLimiter orders = registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC);
        RateLimiter payments = registry.register("payments", Algorithm.TOKEN_BUCKET, SPEC);
        assertThat(payments).isNotSameAs(orders);
        assertThat(registry.limiters()).containsExactlyInAnyOrder(orders, payments);
    }

    @Test
    void unknownAndInvalidNames() {
        registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC);
        assertThat(registry.find("nope")).isEmpty();
        assertThatThrownBy(() -> registry.get("nope")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("orders");
        assertThatThrownBy(() -> registry.register("a b", Algorithm.TOKEN_BUCKET, SPEC))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(registry.find("a b")).as("a failed registration leaves nothing behind").isEmpty();
    }

    @Test
    void nullNameIsAnIllegalArgumentLikeAnyOtherBadName() {
        assertThatThrownBy(() -> registry.register(null, Algorithm.TOKEN_BUCKET, SPEC)).isInstanceOf(IllegalArgumentException.class);
        assertThat(registry.find(null)).isEmpty();
        assertThatThrownBy(() -> registry.get(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachPlanIsALimiterOfItsOwnUnderTheLimitersName() {
        RateLimiter free = registry.register("api", "free", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC));
        RateLimiter trial = registry.register("api", "trial", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC));
        assertThat(trial).as("plans with equal limits still have limiters of their own").isNotSameAs(free);
        assertThat(free.name()).isEqualTo("api");
        assertThat(registry.register("api", "free", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC))).isSameAs(free);
        assertThat(created).hasValue(2);
        assertThat(registry.find("api", "free")).containsSame(free);
        assertThat(registry.find("api", "pro")).isEmpty();
        assertThat(registry.plans("api")).containsExactly(entry("free", free), entry("trial", trial));
        assertThat(registry.plans("orders")).isEmpty();
        assertThat(registry.names()).containsExactly("api");
        assertThat(registry.limiters()).as("limiters without plans only").isEmpty();
        assertThatThrownBy(() -> registry.get("api")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("has plans [free, trial]");
        for (int i = 0; i < 5; i++) {
            assertThat(free.tryAcquire("alice").allowed()).isTrue();
        }
        assertThat(free.tryAcquire("alice").allowed()).isFalse();
        assertThat(trial.tryAcquire("alice").allowed()).as("another plan's state is its own").isTrue();
    }

    @Test
    void aNameHasEitherPlansOrALimiterOfItsOwn() {
        registry.register("api", "free", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC));
        registry.register("orders", Algorithm.TOKEN_BUCKET, SPEC);
        assertThatThrownBy(() -> registry.register("api", Algorithm.TOKEN_BUCKET, SPEC)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("plans [free]");
        assertThatThrownBy(() -> registry.register("orders", "free", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("without plans");
        assertThatThrownBy(() -> registry.register("api", "free", RateLimiterConfig.of(Algorithm.FIXED_WINDOW, SPEC)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("Plan 'free' of limiter 'api'");
        assertThat(registry.names()).containsExactly("api", "orders");
    }

    @Test
    void badPlanNamesAndFactoriesWithoutPlansLeaveNothingBehind() {
        assertThatThrownBy(() -> registry.register("api", "a:b", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Invalid plan name 'a:b'");
        assertThat(registry.names()).isEmpty();
        RateLimiterRegistry withoutPlans = new RateLimiterRegistry((name, config) -> memory.create(name, config));
        assertThatThrownBy(() -> withoutPlans.register("api", "free", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, SPEC)))
            .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("cannot create limiters of plans");
        assertThat(withoutPlans.names()).isEmpty();
    }
}
