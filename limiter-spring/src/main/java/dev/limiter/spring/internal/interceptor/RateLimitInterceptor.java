package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.internal.ServedRequest;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;

/**
 * Around every {@code @RateLimited} method: takes the call's permits from its limiter, or fails
 * with {@link RateLimitExceededException} without calling the method. With max-wait, a call whose
 * permits were reserved ahead waits for its turn first. In shadow mode a rejected call proceeds;
 * with a fallback method, the fallback answers it. One path for every method: the key and cost are
 * evaluated here (for a reactive method whose key depends on the request, on each subscription instead), the decision becomes a {@link dev.limiter.spring.internal.Consequence}, and the method's {@link ReturnKind}
 * renders it as a plain value, a {@code CompletionStage} or a reactive type, without blocking for
 * the latter two. Every outcome passes through {@link dev.limiter.spring.internal.DecisionOutcomes}.
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
            ConcurrencyLimitedMethod concurrency = prepared.concurrency(method, targetClass);
            return (concurrency != null) ? concurrency.invoke(invocation, prepared.clientIps()) : invocation.proceed();
        }
        ReturnKind returns = limited.returns();
        ServedRequest request = limited.usesRequest() ? ServedRequest.ofThisThread(limited.clientIps(prepared)) : ServedRequest.NONE;
        if (limited.usesRequest() && returns.evaluatesPerSubscription()) {
            // A WebFlux exchange is only in the subscriber's context: the key waits for the subscription.
            return returns.limit(InterceptedCall.pending(invocation, limited, prepared, request));
        }
        LimitedMethod.Call call;
        try {
            call = prepared.outcomes().evaluate(limited, () -> limited.call(invocation.getArguments(), target, request));
        }
        catch (RuntimeException ex) {
            // An asynchronous call fails its result, not its caller.
            return returns.failure(ex);
        }
        if (call == null) {
            return invocation.proceed();
        }
        return returns.limit(new InterceptedCall(invocation, limited, prepared, call));
    }
}
