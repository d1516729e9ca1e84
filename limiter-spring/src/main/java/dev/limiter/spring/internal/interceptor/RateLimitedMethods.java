package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.DecisionListener;
import dev.limiter.Outcome;
import dev.limiter.RateLimiter;
import dev.limiter.spring.KeyResolver;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.MissingKeyPolicy;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.DecisionOutcomes;
import dev.limiter.spring.internal.EvaluationContexts;
import dev.limiter.spring.internal.ServedRequest;
import dev.limiter.spring.web.ClientIpResolver;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Finds {@code @RateLimited} methods and prepares each once: resolves its limiter (or its plans),
 * parses its key, cost and plan expressions and checks that they name only the method's parameters,
 * so mistakes surface at startup naming the method (or property) and the expression.
 */
public final class RateLimitedMethods {

    private final LimiterResolver limiters;

    private final @Nullable BeanFactoryResolver beanResolver;

    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    private final SpelExpressionParser parser;

    private final Map<MethodClassKey, Optional<LimitedMethod>> methods = new ConcurrentHashMap<>();

    /** The methods whose limiter is a concurrency limiter: prepared alongside {@link #methods}, where they are absent. */
    private final Map<MethodClassKey, ConcurrencyLimitedMethod> concurrencyMethods = new ConcurrentHashMap<>();

    private final MissingKeyPolicy onMissingKey;

    private final DecisionOutcomes outcomes;

    /** Spring Boot's bean name of the application's task executor. */
    private static final String APPLICATION_TASK_EXECUTOR = "applicationTaskExecutor";

    private final @Nullable BeanFactory beanFactory;

    private volatile @Nullable Executor asyncExecutor;

    private final ClientIpResolver clientIps;

    /** The variables naming the request a call serves, unless a parameter has the name. */
    private static final Set<String> REQUEST_VARIABLES = Set.of(ServedRequest.REQUEST, ServedRequest.PRINCIPAL, ServedRequest.CLIENT_IP);

    /**
     * @param limiters finds each method's limiter
     * @param beanFactory resolves {@code @bean} references in key expressions, and the application's task executor;
     *     null for neither
     * @param onMissingKey what becomes of a call whose key is null or empty
     * @param headerFields whether responses get the RateLimit header fields
     * @param listener hears calls that could not be decided, such as one whose key expression failed
     *     ({@link DecisionListener#NONE} for no one); decisions themselves are heard by the limiters' own listeners
     */
    public RateLimitedMethods(LimiterResolver limiters, @Nullable BeanFactory beanFactory, MissingKeyPolicy onMissingKey,
            boolean headerFields, DecisionListener listener) {
        this(limiters, beanFactory, onMissingKey, headerFields, listener, ClientIpResolver.DIRECT);
    }

    /**
     * @param limiters finds each method's limiter
     * @param beanFactory resolves {@code @bean} references in key expressions, key resolvers, and the
     *     application's task executor; null for none of them
     * @param onMissingKey what becomes of a call whose key is null or empty
     * @param headerFields whether responses get the RateLimit header fields
     * @param listener hears calls that could not be decided, such as one whose key expression failed
     *     ({@link DecisionListener#NONE} for no one); decisions themselves are heard by the limiters' own listeners
     * @param clientIps finds the client's address for {@code #clientIp}
     */
    public RateLimitedMethods(LimiterResolver limiters, @Nullable BeanFactory beanFactory, MissingKeyPolicy onMissingKey,
            boolean headerFields, DecisionListener listener, ClientIpResolver clientIps) {
        this(limiters, beanFactory, onMissingKey, new DecisionOutcomes(headerFields, listener), clientIps);
    }

    RateLimitedMethods(LimiterResolver limiters, @Nullable BeanFactory beanFactory, MissingKeyPolicy onMissingKey,
            DecisionOutcomes outcomes, ClientIpResolver clientIps) {
        this.clientIps = clientIps;
        this.limiters = limiters;
        this.onMissingKey = onMissingKey;
        this.outcomes = outcomes;
        this.beanFactory = beanFactory;
        this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
        this.parser = EvaluationContexts.parser((beanFactory instanceof ConfigurableBeanFactory configurable) ? configurable.getBeanClassLoader() : null);
    }

    /** The parser of key, cost, plan and rule expressions: compiles them once they run often. */
    public SpelExpressionParser parser() {
        return parser;
    }

    /**
     * Where methods returning a CompletionStage are called once Redis has decided: the application's
     * task executor, else the default executor of CompletableFuture; never the thread reading Redis'
     * replies.
     */
    Executor asyncExecutor() {
        Executor executor = this.asyncExecutor;
        if (executor == null) {
            executor = taskExecutor();
            this.asyncExecutor = executor;
        }
        return executor;
    }

    private Executor taskExecutor() {
        if (beanFactory != null && beanFactory.containsBean(APPLICATION_TASK_EXECUTOR)) {
            try {
                return beanFactory.getBean(APPLICATION_TASK_EXECUTOR, Executor.class);
            }
            catch (BeansException ex) {
                // Not an Executor: the default below.
            }
        }
        return new CompletableFuture<Void>().defaultExecutor();
    }

    /**
     * The annotation limiting {@code method} when called on {@code targetClass}: the method's own,
     * else its type's for a public method.
     */
    static @Nullable RateLimited find(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        RateLimited annotation = AnnotatedElementUtils.findMergedAnnotation(specific, RateLimited.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
        }
        if (annotation != null) {
            return annotation;
        }
        int modifiers = specific.getModifiers();
        // Overrides of equals, hashCode and toString count as Object methods too: logging a bean must not take permits.
        if (!Modifier.isPublic(modifiers) || Modifier.isStatic(modifiers) || ReflectionUtils.isObjectMethod(specific)) {
            return null;
        }
        return AnnotatedElementUtils.findMergedAnnotation(targetClass, RateLimited.class);
    }

    /** Finds the client's address of a request. */
    public ClientIpResolver clientIps() {
        return clientIps;
    }

    /** Where the outcome of every limited call goes. */
    public DecisionOutcomes outcomes() {
        return outcomes;
    }

    /** What becomes of a call whose key is null or empty. */
    public MissingKeyPolicy onMissingKey() {
        return onMissingKey;
    }

    /** Resolves {@code @bean} references in expressions; null without a bean factory. */
    public @Nullable BeanResolver beanResolver() {
        return beanResolver;
    }

    /** Prepares every limited method of {@code targetClass} now, failing on the first mistake. */
    void prepare(Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
            get(method, userClass);
        }
    }

    /** The prepared method, or null when the method is not limited. */
    @Nullable LimitedMethod get(Method method, Class<?> targetClass) {
        MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
        Optional<LimitedMethod> prepared = methods.get(cacheKey);
        if (prepared == null) {
            prepared = methods.computeIfAbsent(cacheKey, k -> Optional.ofNullable(prepare(method, targetClass)));
        }
        return prepared.orElse(null);
    }

    /** The prepared method whose limiter is a concurrency limiter; null when it has none (prepared by {@link #get} first). */
    @Nullable ConcurrencyLimitedMethod concurrency(Method method, Class<?> targetClass) {
        return concurrencyMethods.get(new MethodClassKey(method, targetClass));
    }

    private @Nullable LimitedMethod prepare(Method method, Class<?> targetClass) {
        RateLimited annotation = find(method, targetClass);
        if (annotation == null) {
            return null;
        }
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        String site = "@RateLimited on " + describe(specific, targetClass);
        if (annotation.name().isBlank()) {
            throw new LimiterConfigurationException("@RateLimited(name) on " + describe(specific, targetClass), "\"\"",
                    "A rate limited method needs a limiter name", "Add a name, e.g. @RateLimited(name = \"orders\"), and configure it "
                            + "under limiter.limiters.orders");
        }
        Set<String> requestVariables = new LinkedHashSet<>();
        Expression key = parse(annotation.key(), "key", specific, targetClass, requestVariables);
        String costText = annotation.cost().trim();
        Expression cost = (costText.isEmpty() || costText.equals("1")) ? null
                : parse(costText, "cost", specific, targetClass, requestVariables);
        String resolverName = annotation.keyResolver().trim();
        Supplier<KeyResolver> keyResolver = null;
        if (!resolverName.isEmpty()) {
            String where = "@RateLimited(keyResolver) on " + describe(specific, targetClass);
            if (key != null) {
                throw new LimiterConfigurationException(where, "\"" + resolverName + "\"", "A key resolver computes the key that the key "
                        + "expression " + key.getExpressionString() + " would give", "Give either key or keyResolver, not both");
            }
            keyResolver = bean(resolverName, KeyResolver.class, where);
        }
        Expression settle = settle(annotation.settle(), specific, targetClass, site);
        ConcurrencyLimiter concurrency = limiters.concurrencyLimiterFor(annotation, site);
        if (concurrency != null) {
            concurrencyMethods.put(new MethodClassKey(method, targetClass), concurrency(concurrency, annotation, specific, targetClass, site,
                    key, cost, keyResolver, requestVariables));
            return null;
        }
        boolean shadow = limiters.shadow(annotation);
        FallbackMethod fallback = FallbackMethod.resolve(annotation, specific, targetClass);
        // Each call is heard once, from its limiter: rejections as what becomes of them here.
        Outcome rejectedAs = Consequence.rejectedAs(shadow, fallback != null);
        MethodLimits limits = limits(annotation, site, specific, targetClass, requestVariables, rejectedAs);
        return new LimitedMethod(limits, specific, key, cost, site, parameterNames, beanResolver, onMissingKey, shadow, fallback,
                requestVariables, keyResolver, resolverName, List.of(annotation.refundOn()), settle);
    }

    /**
     * The settle expression of {@code method}, parsed and checked: it may name the method's parameters and
     * {@code #result}, and needs a method that returns one value. Null when there is none.
     */
    private @Nullable Expression settle(String text, Method method, Class<?> targetClass, String site) {
        if (text.isBlank()) {
            return null;
        }
        String where = "@RateLimited(settle) on " + describe(method, targetClass);
        Class<?> type = method.getReturnType();
        if (type == void.class || type == Void.class) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "The method returns nothing, so there is no #result "
                    + "to read the actual cost from", "Return the result whose cost settle reads, or remove settle (the call then costs "
                            + "what cost reserves)");
        }
        if (ReturnKind.of(method, site).emitsMany()) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "The method returns a " + type.getSimpleName()
                    + ", which emits many values, while settle reads the cost from one #result", "Return a Mono (for example "
                            + "collect the values into a list) and settle over it, or remove settle");
        }
        Expression expression;
        try {
            expression = parser.parseExpression(text);
        }
        catch (ParseException ex) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a valid SpEL expression: " + ex.getSimpleMessage(),
                    "Write an expression over #result and the method's parameters, such as #result.usage.totalTokens");
        }
        if (expression instanceof SpelExpression spel) {
            Set<String> variables = new LinkedHashSet<>(parameters(method));
            variables.add(RESULT);
            checkVariables(spel.getAST(), method, targetClass, variables, where, text, new LinkedHashSet<>(), "#result");
        }
        return expression;
    }

    /** The variable a settle expression reads the method's result from. */
    static final String RESULT = "result";

    /** A method limited by a concurrency limiter: what of the annotation it cannot honour is an error at startup. */
    private ConcurrencyLimitedMethod concurrency(ConcurrencyLimiter limiter, RateLimited annotation, Method method, Class<?> targetClass,
            String site, @Nullable Expression key, @Nullable Expression cost, @Nullable Supplier<KeyResolver> keyResolver,
            Set<String> requestVariables) {
        String unsupported = (cost != null) ? "cost" : (keyResolver != null) ? "keyResolver" : !annotation.fallbackMethod().isBlank() ? "fallbackMethod"
                : (annotation.refundOn().length > 0) ? "refundOn" : !annotation.settle().isBlank() ? "settle" : !annotation.plan().isBlank() ? "plan"
                        : !annotation.planResolver().isBlank() ? "planResolver" : annotation.shadow() ? "shadow"
                                : (annotation.limit() > 0 || annotation.burst() > 0 || !annotation.window().isBlank()
                                        || annotation.limits().length > 0 || annotation.subWindows() > 0 || !annotation.maxWait().isBlank())
                                                ? "limit, window, burst, limits, subWindows or maxWait" : null;
        if (unsupported != null) {
            throw new LimiterConfigurationException("@RateLimited(" + unsupported + ") on " + describe(method, targetClass), unsupported,
                    "Limiter '" + annotation.name() + "' is a concurrency limit: each call holds one slot while it runs, which "
                            + unsupported + " does not apply to", "Remove " + unsupported + " from the annotation, or name a rate limiter");
        }
        if (org.springframework.core.KotlinDetector.isSuspendingFunction(method)) {
            throw new LimiterConfigurationException(site, "suspend fun " + method.getName(), "A concurrency limit holds a slot per call "
                    + "of a plain, CompletionStage, Mono or Flux method; suspending functions are not supported yet",
                    "Return a Mono, or name a rate limiter");
        }
        ReturnKind returns = ReturnKind.of(method, site);
        if (returns.evaluatesPerSubscription() && !requestVariables.isEmpty()) {
            throw new LimiterConfigurationException("@RateLimited(key) on " + describe(method, targetClass), annotation.key(),
                    "A concurrency limit evaluates the key when the method is called, where a reactive method's request is not known yet",
                    "Give the key a parameter of the method, or name a rate limiter");
        }
        return new ConcurrencyLimitedMethod(limiter, method, key, site, parameterNames, beanResolver, onMissingKey, requestVariables, returns);
    }

    /** The limits of the method's calls: its limiter's own, or the plan each call picks; with the keys never limited. */
    private MethodLimits limits(RateLimited annotation, String site, Method method, Class<?> targetClass, Set<String> requestVariables,
            Outcome rejectedAs) {
        LimiterPlans plans = limiters.plans(annotation, site);
        if (!plans.hasPlans()) {
            return MethodLimits.of(limiters.limiterFor(annotation, site), plans.unlimitedKeys(), rejectedAs);
        }
        LimiterPlans.Setting written = plans.expression();
        Expression expression = (written != null)
                ? parse(written.value(), written.where(), method, targetClass, requestVariables, "Write an expression giving one of the plans "
                        + plans.plans() + ", such as #account.plan or #request.getHeader('X-Plan')")
                : null;
        return planLimits(annotation.name(), plans, expression, rejectedAs);
    }

    /**
     * The plans of limiter {@code name} as requests limited outside an annotation (a rule of
     * {@code limiter.rules}, a gateway route) pick them; null when the limiter has no plans.
     *
     * @param site where the limiter is used, for messages, such as {@code limiter.rules[0]}
     * @param rejectedAs what becomes of a rejected request
     * @param parse parses the limiter's plan expression as the caller parses and checks its own expressions
     * @throws LimiterConfigurationException when the plans are no valid limits, or a bean they name is missing
     */
    public @Nullable MethodLimits plansOf(String name, String site, Outcome rejectedAs, Function<LimiterPlans.Setting, @Nullable Expression> parse) {
        LimiterPlans plans = limiters.plans(name, site);
        if (!plans.hasPlans()) {
            return null;
        }
        LimiterPlans.Setting written = plans.expression();
        return planLimits(name, plans, (written != null) ? parse.apply(written) : null, rejectedAs);
    }

    private MethodLimits planLimits(String name, LimiterPlans plans, @Nullable Expression expression, Outcome rejectedAs) {
        LimiterPlans.Setting resolver = plans.resolver();
        Supplier<PlanResolver> planResolver = (resolver != null) ? bean(resolver.value().trim(), PlanResolver.class, resolver.where()) : null;
        try {
            return MethodLimits.ofPlans(name, plans, expression, planResolver, rejectedAs);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException("limiter.limiters." + name + ".plans", plans.plans(), String.valueOf(ex.getMessage()),
                    "Give at least one plan limits");
        }
    }

    /** The bean named {@code name}, checked now and fetched on the first call (it may not exist yet). */
    private <T> Supplier<T> bean(String name, Class<T> type, String where) {
        if (beanFactory == null || !beanFactory.containsBean(name)) {
            throw new LimiterConfigurationException(where, "\"" + name + "\"", "There is no bean named '" + name + "'",
                    "Declare a " + type.getSimpleName() + " bean of that name, or fix the name");
        }
        if (!beanFactory.isTypeMatch(name, type)) {
            throw new LimiterConfigurationException(where, "\"" + name + "\"", "The bean '" + name + "' is a "
                    + beanFactory.getType(name) + ", not a " + type.getName(), "Name a " + type.getSimpleName() + " bean");
        }
        BeanFactory beans = beanFactory;
        return SingletonSupplier.of(() -> beans.getBean(name, type));
    }

    private @Nullable Expression parse(String text, String attribute, Method method, Class<?> targetClass, Set<String> requestVariables) {
        return parse(text, "@RateLimited(" + attribute + ") on " + describe(method, targetClass), method, targetClass, requestVariables,
                "Write an expression over the method's parameters, such as #user.id or #p0");
    }

    /**
     * @param where the property or attribute holding the expression, for messages
     * @param advice how to write a valid one, for messages
     */
    private @Nullable Expression parse(String text, String where, Method method, Class<?> targetClass, Set<String> requestVariables,
            String advice) {
        if (text.isBlank()) {
            return null;
        }
        Expression expression;
        try {
            expression = parser.parseExpression(text);
        }
        catch (ParseException ex) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a valid SpEL expression: " + ex.getSimpleMessage(),
                    advice);
        }
        if (expression instanceof SpelExpression spel) {
            Set<String> parameters = parameters(method);
            Set<String> variables = new LinkedHashSet<>(parameters);
            variables.addAll(REQUEST_VARIABLES);
            Set<String> used = new LinkedHashSet<>();
            checkVariables(spel.getAST(), method, targetClass, variables, where, text, used, "#request, #principal, #clientIp");
            used.removeAll(parameters);
            used.retainAll(REQUEST_VARIABLES);
            requestVariables.addAll(used);
        }
        return expression;
    }

    /** The parameters an expression may name: by name and as #p0/#a0, and #root/#this. */
    private Set<String> parameters(Method method) {
        Set<String> names = new LinkedHashSet<>();
        String[] declared = parameterNames.getParameterNames(method);
        if (declared != null) {
            names.addAll(Arrays.asList(declared));
        }
        for (int i = 0; i < method.getParameterCount(); i++) {
            names.add("p" + i);
            names.add("a" + i);
        }
        names.add("root");
        names.add("this");
        return names;
    }

    /** @param others the variables beside the parameters that the expression may name, for messages */
    private void checkVariables(SpelNode node, Method method, Class<?> targetClass, Set<String> variables, String where, String text,
            Set<String> used, String others) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            used.add(name);
            if (!variables.contains(name)) {
                String[] declared = parameterNames.getParameterNames(method);
                throw new LimiterConfigurationException(where, "\"" + text + "\"", "The expression names #" + name
                        + ", which is not a parameter of " + describe(method, targetClass),
                        "Use one of the parameters " + parameterList(variables) + ", or " + others + (declared == null
                                ? " (parameter names are unavailable: compile with -parameters to use them)" : ""));
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkVariables(node.getChild(i), method, targetClass, variables, where, text, used, others);
        }
    }

    private static String parameterList(Set<String> variables) {
        Set<String> shown = new LinkedHashSet<>();
        for (String variable : variables) {
            if (!variable.equals("root") && !variable.equals("this") && !variable.equals(RESULT) && !REQUEST_VARIABLES.contains(variable)) {
                shown.add("#" + variable);
            }
        }
        return shown.isEmpty() ? "(the method has none)" : String.join(", ", shown);
    }

    static String describe(Method method, Class<?> targetClass) {
        StringBuilder text = new StringBuilder(ClassUtils.getUserClass(targetClass).getSimpleName()).append('.').append(method.getName())
            .append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            text.append(i > 0 ? ", " : "").append(types[i].getSimpleName());
        }
        return text.append(')').toString();
    }
}
