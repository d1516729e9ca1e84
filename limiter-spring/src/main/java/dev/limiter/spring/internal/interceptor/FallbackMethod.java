package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;

import org.jspecify.annotations.Nullable;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The method answering instead of a rejected call, named by {@code @RateLimited(fallbackMethod)}: a
 * method of the same class with the limited method's parameters, optionally followed by the
 * {@link RateLimitExceededException} (or a supertype), returning something the limited method could
 * return (any {@code CompletionStage} for a method returning one). The fallback of a Kotlin
 * {@code suspend} function is a {@code suspend} function too. Resolved once at startup; called on
 * the target object, never on the proxy.
 */
final class FallbackMethod {

    private final Method method;

    private final boolean takesException;

    /** Whether the fallback is a Kotlin suspend function, called as a publisher as Spring's AOP calls those. */
    private final boolean suspending;

    private FallbackMethod(Method method, boolean takesException, boolean suspending) {
        this.method = method;
        this.takesException = takesException;
        this.suspending = suspending;
        ReflectionUtils.makeAccessible(method);
    }

    /**
     * The fallback of {@code limited} on {@code targetClass}, or null when the annotation names none.
     * The variant taking the exception wins over the one without; among those, the most specific
     * exception type.
     *
     * @throws LimiterConfigurationException when no suitable method exists
     */
    static @Nullable FallbackMethod resolve(RateLimited annotation, Method limited, Class<?> targetClass) {
        String name = annotation.fallbackMethod().trim();
        if (name.isEmpty()) {
            return null;
        }
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        boolean suspending = KotlinDetector.isSuspendingFunction(limited);
        // A suspend function's trailing Continuation is the caller's, not a parameter to match.
        Class<?>[] parameters = parametersOf(limited, suspending);
        List<Method> named = new ArrayList<>();
        List<Method> withException = new ArrayList<>();
        Method plain = null;
        for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
            if (!candidate.getName().equals(name) || candidate.equals(limited)) {
                continue;
            }
            named.add(candidate);
            if (suspending != KotlinDetector.isSuspendingFunction(candidate)) {
                continue;
            }
            Class<?>[] types = parametersOf(candidate, suspending);
            if (Arrays.equals(types, parameters)) {
                plain = candidate;
            }
            else if (types.length == parameters.length + 1 && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
                    && types[parameters.length].isAssignableFrom(RateLimitExceededException.class)) {
                withException.add(candidate);
            }
        }
        String where = "@RateLimited(fallbackMethod) on " + RateLimitedMethods.describe(limited, targetClass);
        // The most specific exception type first: RateLimitExceededException before RuntimeException before Throwable.
        withException.sort(Comparator.comparingInt((Method m) -> depth(m.getParameterTypes()[parameters.length])).reversed());
        Method found = !withException.isEmpty() ? withException.get(0) : plain;
        if (found == null) {
            String problem = named.isEmpty() ? userClass.getSimpleName() + " has no method named '" + name + "'"
                    : "No method '" + name + "' of " + userClass.getSimpleName() + " takes the parameters of the limited method (found "
                            + String.join(", ", named.stream().map(m -> RateLimitedMethods.describe(m, userClass)).toList()) + ")";
            throw new LimiterConfigurationException(where, "\"" + name + "\"", problem, "Declare in " + userClass.getSimpleName()
                    + " one of " + signatures(name, limited) + (suspending ? ", as suspend functions" : "") + ", or name an existing one");
        }
        ReturnKind returns = ReturnKind.of(limited, where);
        // The limited call's stage is made anew from the fallback's: any CompletionStage will do.
        boolean anyStage = returns.isCompletionStage() && CompletionStage.class.isAssignableFrom(found.getReturnType());
        if (!anyStage && !ClassUtils.isAssignable(limited.getReturnType(), found.getReturnType())) {
            // An asynchronous call is decided after the method returned: its fallback answers with the same kind of result.
            String asynchronous = returns.isAsync() ? "; the fallback of an asynchronous method answers in its place, "
                    + "so it returns a " + limited.getReturnType().getSimpleName() + " too" : "";
            throw new LimiterConfigurationException(where, "\"" + name + "\"", "The fallback " + RateLimitedMethods.describe(found, userClass)
                    + " returns " + found.getReturnType().getSimpleName() + ", which " + limited.getName() + " cannot return (it returns "
                    + limited.getReturnType().getSimpleName() + ")" + asynchronous, "Make " + name + " return "
                            + limited.getReturnType().getSimpleName() + " or a subtype, as in " + signatures(name, limited));
        }
        return new FallbackMethod(found, parametersOf(found, suspending).length > parameters.length, suspending);
    }

    private static Class<?>[] parametersOf(Method method, boolean suspending) {
        Class<?>[] types = method.getParameterTypes();
        return suspending ? Arrays.copyOf(types, types.length - 1) : types;
    }

    /** The signatures looked for, such as "String fallback(User, RateLimitExceededException) or String fallback(User)". */
    private static String signatures(String name, Method limited) {
        StringBuilder parameters = new StringBuilder();
        for (Class<?> type : parametersOf(limited, KotlinDetector.isSuspendingFunction(limited))) {
            parameters.append(parameters.length() > 0 ? ", " : "").append(type.getSimpleName());
        }
        String returns = limited.getReturnType().getSimpleName() + " " + name + "(";
        return returns + parameters + (parameters.length() > 0 ? ", " : "") + "RateLimitExceededException) or " + returns + parameters + ")";
    }

    private static int depth(Class<?> type) {
        int depth = 0;
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            depth++;
        }
        return depth;
    }

    /** Calls the fallback on {@code target} with the limited call's arguments, and the exception if it takes one. */
    @Nullable Object invoke(@Nullable Object target, @Nullable Object[] args, RateLimitExceededException ex) throws Throwable {
        // The limited call's own Continuation stays out: the fallback runs as a publisher of its own.
        int count = suspending ? args.length - 1 : args.length;
        Object[] arguments = args;
        if (takesException || suspending) {
            arguments = Arrays.copyOf(args, count + (takesException ? 1 : 0));
            if (takesException) {
                arguments[count] = ex;
            }
        }
        if (suspending) {
            // A suspend function is an instance method of a bean: the proxy always has its target.
            return CoroutinesUtils.invokeSuspendingFunction(method, Objects.requireNonNull(target, "target"), arguments);
        }
        try {
            return method.invoke(target, arguments);
        }
        catch (InvocationTargetException failure) {
            throw failure.getTargetException();
        }
    }

    /** The resolved method. */
    Method method() {
        return method;
    }
}
