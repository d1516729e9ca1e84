package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.spring.KeyContext;
import dev.limiter.spring.KeyResolver;
import dev.limiter.spring.MissingKeyPolicy;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.internal.EnforcementPoint;
import dev.limiter.spring.internal.EvaluationContexts;
import dev.limiter.spring.internal.KeysAndCosts;
import dev.limiter.spring.internal.ServedRequest;
import dev.limiter.spring.web.ClientIpResolver;

import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * A {@code @RateLimited} method ready to limit: its limits (its limiter's, or its plans') and its key,
 * cost and plan expressions, parsed once at startup and evaluated per call.
 */
final class LimitedMethod implements EnforcementPoint {

    /** The limiter's own limits, or its plans, and the keys never limited; each reports rejections as what becomes of them here. */
    private final MethodLimits limits;

    /** The target class's method, whose parameter names the expressions were checked against. */
    private final Method method;

    private final @Nullable Expression key;

    private final @Nullable Expression cost;

    private final String site;

    private final ParameterNameDiscoverer parameterNames;

    private final @Nullable BeanResolver beanResolver;

    private final MissingKeyPolicy onMissingKey;

    private final boolean shadow;

    private final @Nullable FallbackMethod fallback;

    private final ReturnKind returns;

    /** The request variables (#request, #principal, #clientIp) the expressions (key, cost, plan) use, by name. */
    private final Set<String> requestVariables;

    /** The bean computing keys instead of the key expression; null for none. */
    private final @Nullable Supplier<KeyResolver> keyResolver;

    /** How the key resolver is named, for messages. */
    private final String keyResolverName;

    /** The exceptions on which a call gives its permits back; empty for none. */
    private final List<Class<? extends Throwable>> refundOn;

    /** What a call actually cost, over #result and the parameters; null when it costs what it reserved. */
    private final @Nullable Expression settle;

    /**
     * The parameter whose value is the key, when the key expression is nothing but a reference to it
     * ({@code #userId}, {@code #p0}, {@code #a0}) and no other expression needs an evaluation context:
     * then a call reads the argument and spends no SpEL context on it. -1 otherwise.
     */
    private final int keyParameter;

    /** What gives the key, for the message of a missing one. */
    private final String keySource;

    /** Whether a call's key, cost or plan depends on the request it serves: known once, asked on every call. */
    private final boolean usesRequest;

    /** Whether a call needs the client's address: an expression reads {@code #clientIp}, or a resolver may. */
    private final boolean usesClientIp;

    /**
     * @param limits the limits of the calls: the limiter's own, or its plans'
     * @param method the most specific method on the target class: an interface method (JDK proxy)
     *     may name its parameters differently
     * @param key key expression, or null for one key shared by all calls
     * @param cost cost expression, or null for a cost of 1
     * @param shadow whether rejected calls proceed anyway
     * @param fallback what answers a rejected call, or null to throw
     * @param requestVariables the request variables the expressions use
     * @param keyResolver the bean computing keys instead of {@code key}, or null
     * @param keyResolverName the bean's name, for messages
     * @param refundOn the exceptions on which a call gives its permits back
     * @param settle what a call actually cost, over #result and the parameters; null when it costs what it reserved
     */
    LimitedMethod(MethodLimits limits, Method method, @Nullable Expression key, @Nullable Expression cost, String site,
            ParameterNameDiscoverer parameterNames, @Nullable BeanResolver beanResolver, MissingKeyPolicy onMissingKey, boolean shadow,
            @Nullable FallbackMethod fallback, Set<String> requestVariables, @Nullable Supplier<KeyResolver> keyResolver,
            String keyResolverName, List<Class<? extends Throwable>> refundOn, @Nullable Expression settle) {
        this.limits = limits;
        this.method = method;
        this.key = key;
        this.cost = cost;
        this.site = site;
        this.parameterNames = new KnownParameterNames(method, parameterNames);
        this.beanResolver = beanResolver;
        this.onMissingKey = onMissingKey;
        this.shadow = shadow;
        this.fallback = fallback;
        this.returns = ReturnKind.of(method, site);
        this.requestVariables = Set.copyOf(requestVariables);
        this.keyResolver = keyResolver;
        this.keyResolverName = keyResolverName;
        this.refundOn = List.copyOf(refundOn);
        this.settle = settle;
        this.keyParameter = (key != null && keyResolver == null && cost == null && !limits.hasPlanExpression())
                ? referencedParameter(key.getExpressionString(), method, this.parameterNames, this.requestVariables)
                : -1;
        this.keySource = (keyResolver != null) ? "The key resolver '" + keyResolverName + "'"
                : (key != null) ? "The rate limit key " + key.getExpressionString() : "The rate limit key";
        this.usesRequest = keyResolver != null || limits.hasPlanResolver() || !this.requestVariables.isEmpty();
        this.usesClientIp = keyResolver != null || limits.hasPlanResolver() || this.requestVariables.contains(ServedRequest.CLIENT_IP);
    }

    /** A reference to one parameter: {@code #name}, {@code #p<i>} or {@code #a<i>}. */
    private static final Pattern PARAMETER_REFERENCE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");

    /**
     * The index of the parameter {@code expression} is a bare reference to, as SpEL would resolve it
     * in a {@link MethodBasedEvaluationContext}; -1 when it is anything else, names a request variable,
     * or names the variable arguments (which SpEL may repackage).
     */
    static int referencedParameter(String expression, Method method, ParameterNameDiscoverer parameterNames, Set<String> requestVariables) {
        Matcher reference = PARAMETER_REFERENCE.matcher(expression.strip());
        // #root and #this are SpEL's own, never a parameter.
        if (!reference.matches() || requestVariables.contains(reference.group(1)) || reference.group(1).equals("root")
                || reference.group(1).equals("this")) {
            return -1;
        }
        String name = reference.group(1);
        int count = method.getParameterCount();
        int index = -1;
        String @Nullable [] names = parameterNames.getParameterNames(method);
        if (names != null) {
            index = Arrays.asList(names).indexOf(name);
        }
        if (index < 0 && name.matches("[pa][0-9]{1,4}")) {
            index = Integer.parseInt(name.substring(1));
        }
        if (index < 0 || index >= count || (method.isVarArgs() && index == count - 1)) {
            return -1;
        }
        return index;
    }

    /** Whether some failure of a call gives its permits back ({@code @RateLimited(refundOn)}). */
    boolean refunds() {
        return !refundOn.isEmpty();
    }

    /** Whether a call settles its actual cost once it has returned ({@code @RateLimited(settle)}). */
    boolean settles() {
        return settle != null;
    }

    /** The settle expression as written, for messages; "" for none. */
    String settleExpression() {
        return (settle != null) ? settle.getExpressionString() : "";
    }

    /**
     * What the call with {@code args} cost, by the settle expression over {@code result} and the parameters.
     *
     * @throws RuntimeException when the expression fails, or gives no whole number of 0 or more
     */
    long actualCost(@Nullable Object[] args, @Nullable Object target, @Nullable Object result) {
        Expression expression = Objects.requireNonNull(settle, "The method has no settle expression");
        MethodBasedEvaluationContext context = EvaluationContexts.sharingLookups(new MethodBasedEvaluationContext(target, method, args, parameterNames));
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        context.setVariable(RateLimitedMethods.RESULT, result);
        Object value = expression.getValue(context);
        if (value instanceof Number number && number.doubleValue() == number.longValue() && number.longValue() >= 0) {
            return number.longValue();
        }
        throw new IllegalArgumentException("The settle expression " + expression.getExpressionString() + " of " + site + " evaluated to "
                + value + "; it must be a whole number of 0 or more");
    }

    /** Whether a call failing with {@code failure} gives its permits back: it is one of refundOn, or a subclass. */
    boolean refundsOn(Throwable failure) {
        for (Class<? extends Throwable> type : refundOn) {
            if (type.isInstance(failure)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a call's key, cost or plan depends on the request it serves (request variables or a resolver). */
    boolean usesRequest() {
        return usesRequest;
    }

    /** How a call finds the client's address, from {@code prepared}; null when nothing of the call reads it. */
    @Nullable ClientIpResolver clientIps(RateLimitedMethods prepared) {
        return usesClientIp ? prepared.clientIps() : null;
    }

    /** What the method returns, which decides when its calls are decided. */
    ReturnKind returns() {
        return returns;
    }

    /** Name of the limiter. */
    String name() {
        return limits.name();
    }

    /** The limiter whose name and algorithm every call is counted under, whatever limits it. */
    @Override
    public RateLimiter limiter() {
        return limits.counted();
    }

    /** Where the limit is declared, such as "@RateLimited on OrderService.list(User)", for messages. */
    @Override
    public String site() {
        return site;
    }

    /** Whether the limiter only observes: rejected calls proceed and no call waits. */
    @Override
    public boolean shadow() {
        return shadow;
    }

    /** Whether a fallback method answers rejected calls. */
    @Override
    public boolean hasFallback() {
        return fallback != null;
    }

    /** Answers a call that {@code limit} rejected through the fallback method, called on the target object. */
    @Nullable Object fallback(@Nullable Object target, @Nullable Object[] args, AppliedLimit limit, Decision decision) throws Throwable {
        FallbackMethod fallback = this.fallback;
        if (fallback == null) {
            throw new IllegalStateException(site + " has no fallback method");
        }
        return fallback.invoke(target, args, new RateLimitExceededException(name(), limit.plan(), decision));
    }

    /** The key a call is limited under, the permits it takes, and the limit (its plan's) that decides it. */
    record Call(String key, long cost, AppliedLimit limit) {
    }

    /**
     * Evaluates the key, cost and plan of one call, with one evaluation context for all.
     *
     * @param request the request the call serves, {@link ServedRequest#NONE} when the method does not use it
     * @return the call's key, cost and limit; null when the call is not to be limited (missing key, skipped)
     * @throws dev.limiter.spring.UnknownPlanException when the call's plan is none of the limiter's
     */
    @Nullable Call call(@Nullable Object[] args, @Nullable Object target, ServedRequest request) {
        // A key that is one argument needs no evaluation context, which is most of what a call of SpEL costs.
        boolean keyIsArgument = keyParameter >= 0 && args != null;
        EvaluationContext context = keyIsArgument ? null : context(args, target, request);
        String key = (keyResolver != null) ? resolvedKey(args, target, request)
                : keyIsArgument ? keyOrMissing(KeysAndCosts.text(Objects.requireNonNull(args)[keyParameter]), keySource) : key(context);
        if (key == null) {
            return null;
        }
        KeyContext call = limits.hasPlanResolver() ? new KeyContext(method, args, target, request.request(), request.principal(), request.clientIp()) : null;
        AppliedLimit limit = limits.limitOf(key, context, call);
        return new Call(key, cost(context), limit);
    }

    /**
     * The context one call's key, cost and plan are evaluated in, created once per call; null when none
     * is an expression.
     */
    private @Nullable EvaluationContext context(@Nullable Object[] args, @Nullable Object target, ServedRequest request) {
        if (key == null && cost == null && !limits.hasPlanExpression()) {
            return null;
        }
        MethodBasedEvaluationContext context = EvaluationContexts.sharingLookups(new MethodBasedEvaluationContext(target, method, args, parameterNames));
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        // Only the variables the expressions use and no parameter shadows: a parameter named "request" stays itself.
        for (String variable : requestVariables) {
            context.setVariable(variable, switch (variable) {
                case ServedRequest.REQUEST -> request.request();
                case ServedRequest.PRINCIPAL -> request.principal();
                case ServedRequest.CLIENT_IP -> request.clientIp();
                default -> null;
            });
        }
        return context;
    }

    /** The key this call is limited under; null when it is not to be limited (missing key, skipped). */
    private @Nullable String key(@Nullable EvaluationContext context) {
        if (key == null) {
            return "";
        }
        return keyOrMissing(KeysAndCosts.text(key.getValue(Objects.requireNonNull(context, "The key expression needs its evaluation context"))),
                keySource);
    }

    private @Nullable String resolvedKey(@Nullable Object[] args, @Nullable Object target, ServedRequest request) {
        Supplier<KeyResolver> keyResolver = this.keyResolver;
        if (keyResolver == null) {
            throw new IllegalStateException(site + " has no key resolver");
        }
        String text = keyResolver.get().resolve(new KeyContext(method, args, target, request.request(), request.principal(), request.clientIp()));
        return keyOrMissing(text, keySource);
    }

    private @Nullable String keyOrMissing(@Nullable String text, String source) {
        if (text != null && !text.isEmpty()) {
            // The common case, without building the message of a missing key on every call.
            return text;
        }
        return KeysAndCosts.keyOrMissing(text, onMissingKey, name(), source + " of " + site);
    }

    /** The permits this call takes. */
    private long cost(@Nullable EvaluationContext context) {
        if (cost == null) {
            return 1;
        }
        return KeysAndCosts.permits(cost.getValue(Objects.requireNonNull(context, "The cost expression needs its evaluation context")),
                cost.getExpressionString(), site);
    }

    /**
     * The parameter names of one method, looked up once: Spring's discoverers find them by reflection
     * on every call, and every call's evaluation context asks for them.
     */
    private static final class KnownParameterNames implements ParameterNameDiscoverer {

        private final Method method;

        private final String @Nullable [] names;

        private final ParameterNameDiscoverer discoverer;

        KnownParameterNames(Method method, ParameterNameDiscoverer discoverer) {
            this.method = method;
            this.names = discoverer.getParameterNames(method);
            this.discoverer = discoverer;
        }

        @Override
        public String @Nullable [] getParameterNames(Method other) {
            if (other.equals(method)) {
                // Shared, not copied: only this method's evaluation contexts read it, and they never change it.
                return names;
            }
            return discoverer.getParameterNames(other);
        }

        @Override
        public String @Nullable [] getParameterNames(Constructor<?> constructor) {
            return discoverer.getParameterNames(constructor);
        }
    }
}
