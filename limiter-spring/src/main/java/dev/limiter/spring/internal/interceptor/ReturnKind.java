package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * What a limited method returns, and so how its calls are limited: a strategy that renders each
 * call's {@link dev.limiter.spring.internal.Consequence} as that kind of result. Chosen once per method at startup:
 * {@link BlockingCalls} for plain values, {@link CompletionStageCalls} for a
 * {@code CompletionStage}, {@link ReactiveCalls} for any type Spring's
 * {@link ReactiveAdapterRegistry} adapts (Reactor, RxJava, Kotlin {@code Flow}) and for Kotlin
 * {@code suspend} functions.
 */
interface ReturnKind {

    /** Whether Reactor is present, which limits reactive types: they are decided as a {@code Mono} or {@code Flux}. */
    boolean REACTOR_PRESENT = isPresent("reactor.core.publisher.Mono");

    /** Whether Spring's AOP calls suspending functions as publishers, which it does with kotlinx-coroutines-reactor. */
    boolean COROUTINES_REACTOR_PRESENT = REACTOR_PRESENT && isPresent("kotlinx.coroutines.reactor.MonoKt");

    /**
     * Limits one call whose key and cost are known: decides it, records the consequence and renders
     * it, as the method's kind of result.
     */
    @Nullable Object limit(InterceptedCall call) throws Throwable;

    /**
     * The result of a call that could not be decided, such as when its key expression failed: thrown
     * for a plain value, else a failed result of the method's kind.
     */
    Object failure(RuntimeException ex);

    /**
     * Whether a key that depends on the request is evaluated on each subscription, in the
     * subscriber's context (where WebFlux keeps the exchange), rather than when the method is called.
     */
    default boolean evaluatesPerSubscription() {
        return false;
    }

    /** Whether calls are decided asynchronously, after the method returned (or instead of calling it). */
    default boolean isAsync() {
        return true;
    }

    /** Whether the method's result may emit many values (a {@code Flux}), so that no one value is its result. */
    default boolean emitsMany() {
        return false;
    }

    /** Whether the method returns a {@code CompletionStage}, whose fallback may return any stage. */
    default boolean isCompletionStage() {
        return false;
    }

    /**
     * The kind of {@code method}'s result. Nothing of Reactor, RxJava or Kotlin is loaded for an
     * application without them: the registry knows which are present.
     *
     * @param site where the limit is declared, for the message of a type that cannot be limited
     * @throws LimiterConfigurationException for a type the limited call could not return
     */
    static ReturnKind of(Method method, String site) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            if (!COROUTINES_REACTOR_PRESENT) {
                throw new LimiterConfigurationException(site, "suspend fun " + method.getName(),
                        "A suspending function is limited, as Spring's AOP calls it, through Reactor; "
                                + "kotlinx-coroutines-reactor is not on the classpath",
                        "Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor to the application's dependencies");
            }
            return ReactiveCalls.forSuspendingFunction(method);
        }
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type)) {
            if (type != CompletionStage.class && type != CompletableFuture.class) {
                throw unsupported(site, type, "CompletionStage or CompletableFuture");
            }
            return CompletionStageCalls.INSTANCE;
        }
        ReactiveAdapter adapter = (type != void.class && !type.isPrimitive())
                ? ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) : null;
        if (adapter == null) {
            return BlockingCalls.INSTANCE;
        }
        Class<?> reactiveType = adapter.getReactiveType();
        if (reactiveType != type) {
            throw unsupported(site, type, reactiveType.getSimpleName());
        }
        if (!adapter.getDescriptor().isDeferred()) {
            throw new LimiterConfigurationException(site, type.getName(), "A " + type.getSimpleName()
                    + " starts its work when the method returns it, before the limit could decide",
                    "Return a type that starts on subscription (such as Mono or Flux), a CompletableFuture, "
                            + "or make the method a suspend function");
        }
        if (!REACTOR_PRESENT) {
            throw new LimiterConfigurationException(site, type.getName(), "A " + type.getSimpleName()
                    + " is limited on each subscription, without blocking, through Reactor; reactor-core is not on the classpath",
                    "Add io.projectreactor:reactor-core to the application's dependencies");
        }
        return new ReactiveCalls(adapter);
    }

    private static LimiterConfigurationException unsupported(String site, Class<?> type, String declare) {
        return new LimiterConfigurationException(site, type.getName(), "The limit answers an asynchronous call with a " + declare
                + " of its own, decided before the method's result exists; it cannot make that a " + type.getSimpleName(),
                "Declare the method's return type as " + declare);
    }

    /** Whether {@code className} is on the classpath of Limiter. */
    private static boolean isPresent(String className) {
        return ClassUtils.isPresent(className, ReturnKind.class.getClassLoader());
    }
}
