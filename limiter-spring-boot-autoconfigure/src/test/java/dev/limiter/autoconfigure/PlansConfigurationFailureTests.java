package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterConfigurationFailureTests.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/**
 * Plans that cannot work stop startup, naming the property or attribute, the value and the fix: a
 * plan without limits, something picking among no plans, bad SpEL, an unknown default plan, and the
 * like. Plans are checked whether an annotation uses the limiter or not.
 */
class PlansConfigurationFailureTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withPropertyValues("limiter.limiters.api.plans.free.limit=2", "limiter.limiters.api.plans.free.window=1m",
                "limiter.limiters.api.plans.pro.limit=20", "limiter.limiters.api.plans.pro.window=1m");

    private final ApplicationContextRunner annotated = this.contextRunner.withUserConfiguration(ApiConfiguration.class);

    @Test
    void validPlansStart() {
        this.annotated.run((context) -> assertThat(context).hasNotFailed());
        this.contextRunner.withPropertyValues("limiter.limiters.api.default-plan=free")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void planWithoutLimits() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans.team.unlimited=false").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans.team");
            assertThat(ex.getProblem()).isEqualTo("Plan 'team' of limiter 'api' has no limits");
            assertThat(analysis.getAction()).contains("limiter.limiters.api.plans.team.limit", "limiter.limiters.api.plans.team.limits",
                    "unlimited=true");
        }));
    }

    @Test
    void planWithAWindowButNoLimit() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans.team.window=1m").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans.team.limit");
            assertThat(ex.getValue()).isEqualTo("(not set)");
        }));
    }

    @Test
    void zeroLimitInAPlan() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans.free.limit=0").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans.free.limit");
            assertThat(ex.getValue()).isEqualTo("0");
        }));
    }

    @Test
    void severalLimitsOfAPlanThatContradictEachOther() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans.team.limits[0].limit=100",
                "limiter.limiters.api.plans.team.limits[0].window=1s", "limiter.limiters.api.plans.team.limits[1].limit=10",
                "limiter.limiters.api.plans.team.limits[1].window=1m").run(failsWith((ex, analysis) -> {
                    assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans.team.limits");
                    assertThat(ex.getProblem()).contains("Plan 'team' of limiter 'api'", "shorter window needs a smaller limit");
                }));
    }

    @Test
    void limitAndLimitsInOnePlan() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans.free.limits[0].limit=1",
                "limiter.limiters.api.plans.free.limits[0].window=1s").run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                        .isInstanceOfSatisfying(MutuallyExclusiveConfigurationPropertiesException.class,
                                (ex) -> assertThat(ex.getConfiguredNames()).contains("limiter.limiters.api.plans.free.limits",
                                        "limiter.limiters.api.plans.free.limit"));
                });
    }

    @Test
    void burstInAPlanOfAWindowAlgorithm() {
        this.annotated.withPropertyValues("limiter.limiters.api.algorithm=fixed-window", "limiter.limiters.api.plans.pro.burst=40")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans.pro.burst");
                assertThat(analysis.getAction()).contains("Remove the burst");
            }));
    }

    @Test
    void unlimitedPlanWithLimits() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans.internal.unlimited=true",
                "limiter.limiters.api.plans.internal.limit=5").run(failsWith((ex, analysis) -> {
                    assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans.internal.unlimited");
                    assertThat(ex.getProblem()).contains("unlimited, yet it has limits");
                }));
    }

    @Test
    void everyPlanUnlimited() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
            .withUserConfiguration(ApiConfiguration.class)
            .withPropertyValues("limiter.limiters.api.plans.internal.unlimited=true")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans");
                assertThat(ex.getProblem()).contains("Every plan of limiter 'api' is unlimited");
            }));
    }

    @Test
    void ownLimitBesidePlans() {
        this.annotated.withPropertyValues("limiter.limiters.api.limit=10").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.limit");
            assertThat(ex.getValue()).isEqualTo("10");
            assertThat(ex.getProblem()).contains("would apply to no call");
            assertThat(analysis.getAction()).contains("limiter.limiters.api.plans.<plan>.limit");
        }));
    }

    @Test
    void unknownDefaultPlan() {
        this.annotated.withPropertyValues("limiter.limiters.api.default-plan=gold").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.default-plan");
            assertThat(ex.getValue()).isEqualTo("gold");
            assertThat(ex.getProblem()).contains("[free, pro]");
        }));
    }

    @Test
    void defaultPlanWithoutPlans() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
            .withPropertyValues("limiter.limiters.api.limit=1", "limiter.limiters.api.window=1s", "limiter.limiters.api.default-plan=free")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.default-plan");
                assertThat(ex.getProblem()).contains("has no plans");
            }));
    }

    @Test
    void nothingPicksAPlanOfALimiterNoAnnotationUses() {
        this.contextRunner.run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plan");
            assertThat(ex.getValue()).isEqualTo("(not set)");
            assertThat(ex.getProblem()).contains("nothing picks the plan of a call");
            assertThat(analysis.getAction()).contains("limiter.limiters.api.plan-resolver", "limiter.limiters.api.default-plan");
        }));
    }

    @Test
    void nothingPicksAPlanOfAnAnnotatedMethod() {
        this.contextRunner.withUserConfiguration(UnpickedConfiguration.class).run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plan");
            assertThat(ex.getProblem()).contains("used by @RateLimited on UnpickedService.call(String)");
        }));
    }

    @Test
    void planExpressionInTheAnnotationWithoutPlans() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
            .withUserConfiguration(ApiConfiguration.class)
            .withPropertyValues("limiter.limiters.api.limit=1", "limiter.limiters.api.window=1s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(plan) on Api.call(String, String)");
                assertThat(ex.getValue()).isEqualTo("\"#plan\"");
                assertThat(ex.getProblem()).isEqualTo("Limiter 'api' has no plans to pick from");
                assertThat(analysis.getAction()).contains("limiter.limiters.api.plans");
            }));
    }

    @Test
    void planPropertyWithoutPlans() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
            .withPropertyValues("limiter.limiters.orders.limit=1", "limiter.limiters.orders.window=1s",
                    "limiter.limiters.orders.plan=#request.getHeader('X-Plan')")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.plan");
                assertThat(ex.getProblem()).contains("no plans to pick from");
            }));
    }

    @Test
    void badSpelInThePlanProperty() {
        this.contextRunner.withPropertyValues("limiter.limiters.api.plan=#request.getHeader('X-Plan'")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plan");
                assertThat(ex.getProblem()).contains("Not a valid SpEL expression");
            }));
    }

    @Test
    void badSpelInThePlanAttribute() {
        this.contextRunner.withUserConfiguration(BadPlanConfiguration.class).run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(plan) on BadPlanService.call(String)");
            assertThat(ex.getProblem()).contains("Not a valid SpEL expression");
            assertThat(analysis.getAction()).contains("giving one of the plans [free, pro]");
        }));
    }

    @Test
    void planPropertyNamingNoParameterOfAMethodUsingIt() {
        this.annotated.withPropertyValues("limiter.limiters.api.plan=#account.plan").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plan");
            assertThat(ex.getProblem()).contains("#account, which is not a parameter of Api.call(String, String)");
            assertThat(analysis.getAction()).contains("#user", "#plan", "#request");
        }));
    }

    @Test
    void planResolverThatIsNoBean() {
        this.annotated.withPropertyValues("limiter.limiters.api.plan-resolver=accountPlans").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plan-resolver");
            assertThat(ex.getProblem()).contains("no bean named 'accountPlans'");
            assertThat(analysis.getAction()).contains("PlanResolver");
        }));
    }

    @Test
    void planResolverThatIsAnotherBean() {
        this.annotated.withBean("accountPlans", String.class, () -> "free")
            .withPropertyValues("limiter.limiters.api.plan-resolver=accountPlans")
            .run(failsWith((ex, analysis) -> assertThat(ex.getProblem()).contains("not a dev.limiter.spring.PlanResolver")));
    }

    @Test
    void planAndPlanResolverProperties() {
        this.annotated.withBean("accountPlans", PlanResolver.class, () -> (call, key) -> "free")
            .withPropertyValues("limiter.limiters.api.plan=#plan", "limiter.limiters.api.plan-resolver=accountPlans")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plan-resolver");
                assertThat(analysis.getAction()).contains("either plan or plan-resolver");
            }));
    }

    @Test
    void planAndPlanResolverAttributes() {
        this.contextRunner.withBean("accountPlans", PlanResolver.class, () -> (call, key) -> "free")
            .withUserConfiguration(BothConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(planResolver) on BothService.call(String)");
                assertThat(analysis.getAction()).contains("either plan or planResolver");
            }));
    }

    @Test
    void invalidPlanName() {
        this.annotated.withPropertyValues("limiter.limiters.api.plans[a b].limit=1", "limiter.limiters.api.plans[a b].window=1s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.plans");
                assertThat(ex.getValue()).isEqualTo("a b");
                assertThat(ex.getProblem()).contains("Invalid plan name");
            }));
    }

    @Test
    void emptyUnlimitedKey() {
        this.annotated.withPropertyValues("limiter.limiters.api.unlimited-keys[0]=ops", "limiter.limiters.api.unlimited-keys[1]=")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.api.unlimited-keys[1]")));
    }

    @Configuration(proxyBeanMethods = false)
    static class ApiConfiguration {

        @Bean
        Api api() {
            return new Api();
        }
    }

    static class Api {

        @RateLimited(name = "api", key = "#user", plan = "#plan")
        public void call(String user, String plan) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnpickedConfiguration {

        @Bean
        UnpickedService unpickedService() {
            return new UnpickedService();
        }
    }

    static class UnpickedService {

        @RateLimited(name = "api", key = "#user")
        public void call(String user) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadPlanConfiguration {

        @Bean
        BadPlanService badPlanService() {
            return new BadPlanService();
        }
    }

    static class BadPlanService {

        @RateLimited(name = "api", key = "#user", plan = "#user.plan +")
        public void call(String user) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BothConfiguration {

        @Bean
        BothService bothService() {
            return new BothService();
        }
    }

    static class BothService {

        @RateLimited(name = "api", key = "#user", plan = "#user", planResolver = "accountPlans")
        public void call(String user) {
        }
    }
}
