package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.Permit;
import dev.limiter.spring.MissingKeyPolicy;
import dev.limiter.spring.internal.EvaluationContexts;
import dev.limiter.spring.internal.KeysAndCosts;
import dev.limiter.spring.internal.ServedRequest;
import dev.limiter.spring.web.ClientIpResolver;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A {@code @RateLimited} method whose limiter is a {@link ConcurrencyLimiter}: each call holds a slot of its
 * key while it runs. A plain call releases it when it returns or throws, a {@code CompletionStage} when it
 * completes, a {@code Mono} or {@code Flux} when it completes, fails or is cancelled (a slot per subscription,
 * taken on a worker thread since taking it asks Redis and may wait).
 */
final class ConcurrencyLimitedMethod {

    private final ConcurrencyLimiter limiter;

    private final Method method;

    private final @Nullable Expression key;

    private final String site;

    private final ParameterNameDiscoverer parameterNames;

    private final @Nullable BeanResolver beanResolver;

    private final MissingKeyPolicy onMissingKey;

    private final Set<String> requestVariables;

    private final Kind kind;

    /** The adapter of a reactive return type; null for the others. */
    private final @Nullable ReactiveAdapter adapter;

    enum Kind {
        BLOCKING, COMPLETION_STAGE, REACTIVE
    }

    ConcurrencyLimitedMethod(ConcurrencyLimiter limiter, Method method, @Nullable Expression key, String site,
            ParameterNameDiscoverer parameterNames, @Nullable BeanResolver beanResolver, MissingKeyPolicy onMissingKey,
            Set<String> requestVariables, ReturnKind returns) {
        this.limiter = limiter;
        this.method = method;
        this.key = key;
        this.site = site;
        this.parameterNames = parameterNames;
        this.beanResolver = beanResolver;
        this.onMissingKey = onMissingKey;
        this.requestVariables = Set.copyOf(requestVariables);
        this.kind = (returns == BlockingCalls.INSTANCE) ? Kind.BLOCKING : returns.isCompletionStage() ? Kind.COMPLETION_STAGE : Kind.REACTIVE;
        this.adapter = (kind == Kind.REACTIVE) ? ReactiveAdapterRegistry.getSharedInstance().getAdapter(method.getReturnType()) : null;
    }

    String name() {
        return limiter.name();
    }

    boolean usesRequest() {
        return !requestVariables.isEmpty();
    }

    /** Calls the method holding a slot of its key for as long as the call runs. */
    @Nullable Object invoke(MethodInvocation invocation, @Nullable ClientIpResolver clientIps) throws Throwable {
        ServedRequest request = usesRequest() ? ServedRequest.ofThisThread(clientIps) : ServedRequest.NONE;
        String key = key(invocation.getArguments(), invocation.getThis(), request);
        if (key == null) {
            return invocation.proceed();
        }
        return switch (kind) {
            case BLOCKING -> {
                try (Permit permit = limiter.acquire(key)) {
                    yield invocation.proceed();
                }
            }
            case COMPLETION_STAGE -> {
                Permit permit = limiter.acquire(key);
                Object result;
                try {
                    result = invocation.proceed();
                }
                catch (Throwable ex) {
                    permit.close();
                    throw ex;
                }
                if (result == null) {
                    permit.close();
                    yield null;
                }
                yield ((CompletionStage<?>) result).whenComplete((value, failure) -> permit.close());
            }
            case REACTIVE -> reactive(invocation.proceed(), key);
        };
    }

    private @Nullable Object reactive(@Nullable Object result, String key) {
        ReactiveAdapter adapter = Objects.requireNonNull(this.adapter, "a reactive method has its adapter");
        return (result != null) ? ReactiveSlots.holding(limiter, key, result, adapter) : null;
    }

    /** Reactor's part, loaded only for reactive methods (Reactor is optional). */
    private static final class ReactiveSlots {

        static Object holding(ConcurrencyLimiter limiter, String key, Object result, ReactiveAdapter adapter) {
            Flux<?> held = Flux.usingWhen(Mono.fromCallable(() -> limiter.acquire(key)).subscribeOn(Schedulers.boundedElastic()),
                    (permit) -> adapter.toPublisher(result), ReactiveSlots::release, (permit, failure) -> release(permit),
                    ReactiveSlots::release);
            return adapter.fromPublisher(adapter.isMultiValue() ? held : held.next());
        }

        private static Mono<Void> release(Permit permit) {
            return Mono.fromRunnable(permit::close);
        }
    }

    private @Nullable String key(@Nullable Object[] args, @Nullable Object target, ServedRequest request) {
        if (key == null) {
            return "";
        }
        MethodBasedEvaluationContext context = EvaluationContexts.sharingLookups(new MethodBasedEvaluationContext(target, method, args,
                parameterNames));
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        for (String variable : requestVariables) {
            context.setVariable(variable, switch (variable) {
                case ServedRequest.REQUEST -> request.request();
                case ServedRequest.PRINCIPAL -> request.principal();
                case ServedRequest.CLIENT_IP -> request.clientIp();
                default -> null;
            });
        }
        String text = KeysAndCosts.text(key.getValue(context));
        return (text != null && !text.isEmpty()) ? text
                : KeysAndCosts.keyOrMissing(text, onMissingKey, limiter.name(), "The rate limit key " + key.getExpressionString() + " of " + site);
    }
}
