package dev.limiter.spring;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a limited method returns, which decides when its call is decided: before the method runs
 * for a plain value, without blocking for asynchronous results.
 */
enum ReturnKind {

    /** A value, or nothing: decided on the calling thread before the method runs. */
    VALUE,

    /** A {@link CompletionStage}: decided without blocking; the method is called once decided. */
    COMPLETION_STAGE,

    /** A Reactor {@code Mono}: decided on each subscription, before subscribing to the method's. */
    MONO,

    /** A Reactor {@code Flux}: decided on each subscription, before subscribing to the method's. */
    FLUX;

    private static final String MONO_CLASS = "reactor.core.publisher.Mono";

    private static final String FLUX_CLASS = "reactor.core.publisher.Flux";

    /** Whether the call is decided asynchronously. */
    boolean isAsync() {
        return this != VALUE;
    }

    /**
     * The kind of {@code method}'s result. Found by class name, so that nothing of Reactor is loaded
     * for an application without it.
     *
     * @param site where the limit is declared, for the message of a type that cannot be limited
     * @throws LimiterConfigurationException for a subtype of these that the limited call could not return
     */
    static ReturnKind of(Method method, String site) {
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type)) {
            if (type != CompletionStage.class && type != CompletableFuture.class) {
                throw unsupported(site, type, "CompletionStage or CompletableFuture");
            }
            return COMPLETION_STAGE;
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(MONO_CLASS) || c.getName().equals(FLUX_CLASS)) {
                if (c != type) {
                    throw unsupported(site, type, c.getSimpleName());
                }
                return c.getName().equals(MONO_CLASS) ? MONO : FLUX;
            }
        }
        return VALUE;
    }

    private static LimiterConfigurationException unsupported(String site, Class<?> type, String declare) {
        return new LimiterConfigurationException(site, type.getName(), "The limit answers an asynchronous call with a " + declare
                + " of its own, decided before the method's result exists; it cannot make that a " + type.getSimpleName(),
                "Declare the method's return type as " + declare);
    }
}
