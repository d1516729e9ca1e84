package dev.limiter.spring;

import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;

/**
 * Around every {@code @RateLimited} method: takes the call's permits from its limiter, or throws
 * {@link RateLimitExceededException} without calling the method. With max-wait, a call whose
 * permits were reserved ahead waits for its turn first. In shadow mode a rejected call proceeds;
 * with a fallback method, the fallback answers it. Methods returning a {@code CompletionStage}, a
 * {@code Mono} or a {@code Flux} are limited the same way without blocking, by
 * {@link CompletionStageCalls} and {@link ReactorCalls}.
 * Every outcome passes through {@link DecisionOutcomes}.
 */
final class RateLimitInterceptor implements MethodInterceptor {

    private final Supplier<RateLimitedMethods> methods;

    RateLimitInterceptor(Supplier<RateLimitedMethods> methods) {
        this.methods = methods;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
        RateLimitedMethods prepared = methods.get();
        LimitedMethod limited = prepared.get(method, targetClass);
        if (limited == null) {
            return invocation.proceed();
        }
        switch (limited.returns()) {
            case COMPLETION_STAGE -> {
                return CompletionStageCalls.limit(invocation, limited, prepared);
            }
            case MONO, FLUX -> {
                return ReactorCalls.limit(invocation, limited, prepared);
            }
            default -> {
            }
        }
        Object[] args = invocation.getArguments();
        DecisionOutcomes outcomes = prepared.outcomes();
        LimitedMethod.Call call = outcomes.evaluate(limited, args, target);
        if (call == null) {
            return invocation.proceed();
        }
        String key = call.key();
        Decision decision = outcomes.decide(limited, key, call.cost());
        Outcome outcome = limited.outcomeOf(decision);
        outcomes.record(limited, key, decision, outcome);
        switch (outcome) {
            case REJECTED -> throw new RateLimitExceededException(limited.limiter().name(), decision);
            case FALLBACK -> {
                return limited.fallback(target, args, decision);
            }
            case ALLOWED -> {
                // A shadow limiter must not slow its callers either: they never wait.
                if (!decision.waitFor().isZero() && !limited.shadow()) {
                    awaitTurn(limited, decision);
                }
            }
            // Shadow mode changes nothing for the caller.
            default -> {
            }
        }
        return invocation.proceed();
    }

    /** With max-wait, the permits are already reserved: the call only has to wait for its turn. */
    private static void awaitTurn(LimitedMethod limited, Decision decision) {
        try {
            TimeUnit.NANOSECONDS.sleep(decision.waitFor().toNanos());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting " + decision.waitFor().toMillis() + " ms for a permit of limiter '"
                    + limited.limiter().name() + "'", ex);
        }
    }
}
