package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.UnknownPlanException;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;

/**
 * The cases of plans over HTTP that Spring MVC and WebFlux share, on Redis: the plan comes from a
 * request header (the default plan without one) or a PlanResolver bean, each plan's limits and
 * RateLimit fields answer, an unknown plan is a server error, and unlimited plans and keys pass
 * without RateLimit fields or Redis state. Each stack's subclass supplies its application.
 */
abstract class PlansCases {

    /**
     * Limiter "api": fixed window, plans free (1 a minute, the default), pro (3 a minute) and internal
     * (unlimited), key "ops" unlimited; limiter "accounts": plans free (1 a minute) and pro (2 a minute).
     */
    static final String[] PLANS = { "limiter.limiters.api.algorithm=fixed-window", "limiter.limiters.api.default-plan=free",
            "limiter.limiters.api.plans.free.limit=1", "limiter.limiters.api.plans.free.window=1m",
            "limiter.limiters.api.plans.pro.limit=3", "limiter.limiters.api.plans.pro.window=1m",
            "limiter.limiters.api.plans.internal.unlimited=true", "limiter.limiters.api.unlimited-keys=ops",
            "limiter.limiters.accounts.algorithm=fixed-window", "limiter.limiters.accounts.plans.free.limit=1",
            "limiter.limiters.accounts.plans.free.window=1m", "limiter.limiters.accounts.plans.pro.limit=2",
            "limiter.limiters.accounts.plans.pro.window=1m" };

    final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    /**
     * The application, on Redis with {@link #keyPrefix}, time standing still (what a test takes stays
     * taken), the properties {@link #PLANS}, a plan resolver "accountPlans" (alice free, carol pro,
     * by header X-User), and a controller: GET /plan limited by "api" keyed by header X-User in the plan
     * of header X-Plan ({@link #planExpression()}), GET /resolved by "accounts" in the plan of "accountPlans".
     */
    abstract Application application();

    /** The expression of /plan's plan: header X-Plan. */
    abstract String planExpression();

    @Test
    void thePlanHeaderPicksThePlanAndEachPlanAnswersWithItsOwnLimits() {
        application().run((client, context) -> {
            // No X-Plan: the default plan, free, 1 a minute.
            client.get("/plan").header("X-User", "alice").send().isOk().hasHeader("RateLimit-Policy", "\"api\";q=1;w=60");
            WebStack.Answer rejected = client.get("/plan").header("X-User", "alice").header("X-Plan", "free").send()
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit-Policy", "\"api\";q=1;w=60")
                .hasJson("$.plan", "free");
            assertThat((String) rejected.json("$.detail")).startsWith("Rate limit 'api' (plan 'free') exceeded");
            // Alice upgrades: pro counts afresh, 3 a minute.
            for (int i = 0; i < 3; i++) {
                client.get("/plan").header("X-User", "alice").header("X-Plan", "pro").send().isOk()
                    .hasHeader("RateLimit-Policy", "\"api\";q=3;w=60");
            }
            client.get("/plan").header("X-User", "alice").header("X-Plan", "pro").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit-Policy", "\"api\";q=3;w=60")
                .hasHeaderStartingWith("RateLimit", "\"api\";r=0;t=")
                .hasJson("$.plan", "pro");
            client.get("/plan").header("X-User", "bob").send().isOk();
        });
    }

    @Test
    void anUnknownPlanIsAServerError() {
        application().run((client, context) -> {
            client.get("/plan").header("X-User", "alice").header("X-Plan", "gold").send().failedWith(UnknownPlanException.class, (ex) -> {
                assertThat(ex.getPlan()).isEqualTo("gold");
                assertThat(ex.getMessage()).contains(planExpression());
            });
            // Nothing was charged.
            client.get("/plan").header("X-User", "alice").send().isOk();
        });
    }

    @Test
    void unlimitedPlansAndKeysPassWithoutRateLimitFieldsOrRedisState() {
        application().run((client, context) -> {
            for (int i = 0; i < 10; i++) {
                client.get("/plan").header("X-User", "ops").send().isOk().hasNoHeader("RateLimit-Policy").hasNoHeader("RateLimit");
                client.get("/plan").header("X-User", "alice").header("X-Plan", "internal").send().isOk().hasNoHeader("RateLimit");
            }
            assertThat(keysUnder(context.getBean(StringRedisTemplate.class), this.keyPrefix + ":{api")).isEmpty();
        });
    }

    @Test
    void aPlanResolverBeanPicksThePlanFromTheRequest() {
        application().run((client, context) -> {
            client.get("/resolved").header("X-User", "alice").send().isOk().hasHeader("RateLimit-Policy", "\"accounts\";q=1;w=60");
            client.get("/resolved").header("X-User", "alice").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/resolved").header("X-User", "carol").send().isOk().hasHeader("RateLimit-Policy", "\"accounts\";q=2;w=60");
            client.get("/resolved").header("X-User", "carol").send().isOk();
            client.get("/resolved").header("X-User", "carol").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            // Nobody the resolver knows, and no default plan.
            client.get("/resolved").header("X-User", "dave").send()
                .failedWith(UnknownPlanException.class, (ex) -> assertThat(ex).hasMessageContaining("picked no plan (null)"));
        });
    }

    static List<String> keysUnder(StringRedisTemplate redis, String prefix) {
        try (Cursor<String> cursor = redis.scan(ScanOptions.scanOptions().match(prefix + "*").count(1000).build())) {
            return cursor.stream().toList();
        }
    }
}
