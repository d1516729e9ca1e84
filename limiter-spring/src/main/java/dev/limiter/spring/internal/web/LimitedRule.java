package dev.limiter.spring.internal.web;

import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.limiter.RateLimiter;
import dev.limiter.spring.KeyContext;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.MissingKeyPolicy;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.EnforcementPoint;
import dev.limiter.spring.internal.KeysAndCosts;
import dev.limiter.spring.internal.RateLimitHeaderFields;
import dev.limiter.spring.internal.ServedRequest;
import dev.limiter.spring.internal.interceptor.AppliedLimit;
import dev.limiter.spring.internal.interceptor.MethodLimits;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * A rule of {@code limiter.rules} ready to limit: its path patterns and methods, and its condition,
 * key and cost expressions, parsed and checked once at startup so mistakes surface naming the
 * property; evaluated per request over {@code #request}, {@code #principal} and {@code #clientIp},
 * as in {@code @RateLimited} keys. Its limiter is looked up on the first request, once every
 * annotation that may share it has completed it.
 */
final class LimitedRule implements EnforcementPoint {

    /** The variables a rule's expressions may name: the request's, and SpEL's own. */
    private static final Set<String> VARIABLES = Set.of(ServedRequest.REQUEST, ServedRequest.PRINCIPAL, ServedRequest.CLIENT_IP, "root",
            "this");

    /** HTTP's methods (RFC 9110, and PATCH): any other name is a mistake. */
    private static final Set<HttpMethod> KNOWN_METHODS = Set.of(HttpMethod.values());

    private final String site;

    /** What gives the key, for the message of a missing one: made once, not per request. */
    private final String keySource;

    private final List<PathPattern> paths;

    /** The same patterns as plain text, matched without parsing the path; null when one is not plain. */
    private final @Nullable List<PlainPath> plainPaths;

    /** The methods the rule applies to; empty for all. */
    private final Set<HttpMethod> methods;

    private final @Nullable Expression when;

    private final @Nullable Expression unless;

    private final @Nullable Expression key;

    private final @Nullable Expression cost;

    /** The cost of every request when the cost is a number, else 0 (evaluated per request). */
    private final long fixedCost;

    private final MissingKeyPolicy onMissingKey;

    private final boolean shadow;

    private final Supplier<RateLimiter> limiter;

    private final Supplier<RateLimiter> deciding;

    /** The plans of the rule's limiter, one picked per request; null when the limiter has none. */
    private final @Nullable MethodLimits plans;

    /** Whether an expression of the rule reads {@code #clientIp}: only then is the client's address found. */
    private final boolean usesClientIp;

    /** Whether an expression of the rule reads {@code #principal}. */
    private final boolean usesPrincipal;

    /** Made on the first request, and again when the limiter is retuned. */
    private volatile @Nullable RateLimitHeaderFields headerFields;

    private LimitedRule(RateLimitRule rule, List<PathPattern> paths, Set<HttpMethod> methods, @Nullable Expression when,
            @Nullable Expression unless, @Nullable Expression key, @Nullable Expression cost, long fixedCost, MissingKeyPolicy onMissingKey,
            Supplier<RateLimiter> limiter, @Nullable MethodLimits plans, @Nullable Expression plan) {
        this.site = rule.property();
        this.paths = List.copyOf(paths);
        this.plainPaths = plainPaths(paths);
        this.methods = Set.copyOf(methods);
        this.when = when;
        this.unless = unless;
        this.key = key;
        this.keySource = (key != null) ? "The rate limit key " + key.getExpressionString() + " of " + site : "";
        this.cost = cost;
        this.fixedCost = fixedCost;
        this.onMissingKey = onMissingKey;
        this.plans = plans;
        // A plan resolver gets the whole request, client address and principal included.
        boolean resolves = plans != null && plans.hasPlanResolver();
        this.usesClientIp = resolves || anyReads(ServedRequest.CLIENT_IP, when, unless, key, cost, plan);
        this.usesPrincipal = resolves || anyReads(ServedRequest.PRINCIPAL, when, unless, key, cost, plan);
        this.shadow = rule.shadow();
        this.limiter = (plans != null) ? plans::counted : SingletonSupplier.of(limiter);
        // A rule has no fallback: a rejection fails the request, or proceeds in shadow mode.
        this.deciding = SingletonSupplier.of(() -> this.limiter.get()
            .reportingRejectionsAs(Consequence.rejectedAs(this.shadow, false)));
    }

    /**
     * Checks {@code rule} and prepares it.
     *
     * @param limiter finds the rule's limiter, on the first request
     * @param methods the limited methods, whose settings and plans rules share
     * @throws LimiterConfigurationException naming the property of the first mistake
     */
    static LimitedRule of(RateLimitRule rule, Supplier<RateLimiter> limiter, RateLimitedMethods limitedMethods) {
        SpelExpressionParser parser = limitedMethods.parser();
        String property = rule.property();
        if (rule.limiter() == null || rule.limiter().isBlank()) {
            throw new LimiterConfigurationException(property + ".limiter", "\"\"", "A rule needs the limiter that decides its requests",
                    "Name a limiter configured under limiter.limiters, such as limiter: api");
        }
        List<PathPattern> paths = paths(property, rule.paths());
        Set<HttpMethod> methods = methods(property, rule.methods());
        Expression when = parse(parser, property + ".when", rule.when());
        Expression unless = parse(parser, property + ".unless", rule.unless());
        Expression key = parse(parser, property + ".key", rule.key());
        Expression cost = parse(parser, property + ".cost", rule.cost());
        long fixedCost = 1;
        if (cost != null) {
            fixedCost = fixedCost(property + ".cost", cost);
            if (fixedCost > 0) {
                cost = null;
            }
        }
        List<Expression> plan = new ArrayList<>(1);
        MethodLimits plans = limitedMethods.plansOf(rule.limiter().trim(), property, Consequence.rejectedAs(rule.shadow(), false), (setting) -> {
            Expression parsed = parse(parser, setting.where(), setting.value());
            if (parsed != null) {
                plan.add(parsed);
            }
            return parsed;
        });
        return new LimitedRule(rule, paths, methods, when, unless, key, cost, fixedCost, limitedMethods.onMissingKey(), limiter, plans,
                plan.isEmpty() ? null : plan.get(0));
    }

    private static List<PathPattern> paths(String property, List<String> patterns) {
        if (patterns.isEmpty()) {
            throw new LimiterConfigurationException(property + ".paths", "[]", "A rule needs at least one path pattern",
                    "List the paths it limits, such as paths: /api/** (Spring's PathPattern syntax)");
        }
        List<PathPattern> paths = new ArrayList<>();
        for (int i = 0; i < patterns.size(); i++) {
            String pattern = patterns.get(i);
            String where = property + ".paths[" + i + "]";
            if (pattern == null || pattern.isBlank()) {
                throw new LimiterConfigurationException(where, "\"\"", "A path pattern is empty", "Write a pattern such as /api/**");
            }
            try {
                paths.add(PathPatternParser.defaultInstance.parse(pattern.trim()));
            }
            catch (PatternParseException ex) {
                throw new LimiterConfigurationException(where, pattern, "Not a path pattern: " + ex.getMessage(),
                        "Write a pattern in Spring's PathPattern syntax, such as /api/orders/**, /api/orders/{id} or /api/*.json "
                                + "(** only at the end)");
            }
        }
        return paths;
    }

    private static @Nullable List<PlainPath> plainPaths(List<PathPattern> paths) {
        List<PlainPath> plain = new ArrayList<>();
        for (PathPattern pattern : paths) {
            PlainPath text = PlainPath.of(pattern.getPatternString());
            if (text == null) {
                return null;
            }
            plain.add(text);
        }
        return List.copyOf(plain);
    }

    private static Set<HttpMethod> methods(String property, List<String> names) {
        Set<HttpMethod> methods = new LinkedHashSet<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            HttpMethod method = (name != null && !name.isBlank()) ? HttpMethod.valueOf(name.trim().toUpperCase(Locale.ROOT)) : null;
            if (method == null || !KNOWN_METHODS.contains(method)) {
                throw new LimiterConfigurationException(property + ".methods[" + i + "]", (name != null) ? name : "\"\"",
                        "Not an HTTP method", "Use GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or TRACE, or leave methods out to "
                                + "limit every method");
            }
            methods.add(method);
        }
        return methods;
    }

    /** The expression written at {@code property}, checked to name only the request's variables; null when blank. */
    private static @Nullable Expression parse(SpelExpressionParser parser, String property, @Nullable String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Expression expression;
        try {
            expression = parser.parseExpression(text);
        }
        catch (ParseException ex) {
            throw new LimiterConfigurationException(property, text, "Not a valid SpEL expression: " + ex.getSimpleMessage(),
                    "Write an expression over the request, such as #clientIp, #principal or #request.getHeader('X-Api-Key')");
        }
        if (expression instanceof SpelExpression spel) {
            checkVariables(spel.getAST(), property, text);
        }
        return expression;
    }

    /** Whether one of {@code expressions} (null for none written) reads the variable {@code name}. */
    private static boolean anyReads(String name, @Nullable Expression... expressions) {
        return Stream.of(expressions).anyMatch((expression) -> expression instanceof SpelExpression spel && reads(spel.getAST(), name));
    }

    /** Whether the expression under {@code node} reads the variable {@code name}. */
    private static boolean reads(SpelNode node, String name) {
        if (node instanceof VariableReference && node.toStringAST().substring(1).equals(name)) {
            return true;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            if (reads(node.getChild(i), name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether an expression of the rule reads {@code #clientIp}. */
    boolean usesClientIp() {
        return usesClientIp;
    }

    /** Whether an expression of the rule reads {@code #principal}. */
    boolean usesPrincipal() {
        return usesPrincipal;
    }

    private static void checkVariables(SpelNode node, String property, String text) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            if (!VARIABLES.contains(name)) {
                throw new LimiterConfigurationException(property, text, "The expression names #" + name
                        + ", which is not a variable of a rule", "Use #request, #principal or #clientIp");
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkVariables(node.getChild(i), property, text);
        }
    }

    /**
     * The cost of a cost that names nothing of the request nor any bean (a number, or arithmetic
     * on numbers), evaluated and checked now; 0 for one evaluated per request.
     */
    private static long fixedCost(String property, Expression cost) {
        if (!(cost instanceof SpelExpression spel) || !isConstant(spel.getAST())) {
            return 0;
        }
        String action = "Write the permits each request takes, such as 1 or 5, or an expression over the request";
        Object value;
        try {
            value = cost.getValue();
        }
        catch (EvaluationException ex) {
            throw new LimiterConfigurationException(property, cost.getExpressionString(), "The cost cannot be evaluated: " + ex.getMessage(),
                    action);
        }
        try {
            return KeysAndCosts.permits(value, cost.getExpressionString(), property);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(property, cost.getExpressionString(), "A cost must be a whole number of at least 1, not "
                    + value, action);
        }
    }

    private static boolean isConstant(SpelNode node) {
        if (node instanceof VariableReference || node instanceof BeanReference) {
            return false;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            if (!isConstant(node.getChild(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a request with this method and path is one the rule applies to (its conditions aside).
     * HEAD counts as GET, since Spring runs GET handlers for it. A CORS pre-flight request, which a
     * browser sends ahead of a cross-origin request, is limited only by a rule that lists OPTIONS:
     * else browser clients would pay twice.
     *
     * @param preFlight whether the request is a CORS pre-flight request
     */
    boolean matches(HttpMethod method, PathContainer path, boolean preFlight) {
        if (!appliesTo(method, preFlight)) {
            return false;
        }
        for (PathPattern pattern : paths) {
            if (pattern.matches(path)) {
                return true;
            }
        }
        return false;
    }

    /** As {@link #matches(HttpMethod, PathContainer, boolean)}, for a path of plain text; only if {@link #hasPlainPaths()}. */
    boolean matches(HttpMethod method, String plainPath, boolean preFlight) {
        List<PlainPath> plain = this.plainPaths;
        if (plain == null) {
            throw new IllegalStateException(site + ".paths has a pattern that is not plain text: " + paths);
        }
        if (!appliesTo(method, preFlight)) {
            return false;
        }
        for (PlainPath pattern : plain) {
            if (pattern.matches(plainPath)) {
                return true;
            }
        }
        return false;
    }

    /** Whether every path pattern of the rule is plain text, so that a path of plain text needs no parsing. */
    boolean hasPlainPaths() {
        return plainPaths != null;
    }

    private boolean appliesTo(HttpMethod method, boolean preFlight) {
        if (preFlight) {
            return methods.contains(HttpMethod.OPTIONS);
        }
        return methods.isEmpty() || methods.contains(method) || (method.equals(HttpMethod.HEAD) && methods.contains(HttpMethod.GET));
    }

    /**
     * The key and cost of a request under this rule, evaluated in {@code context} (which holds the
     * request's variables).
     *
     * @return null when the rule does not apply: its conditions exclude the request, or the key is
     *     missing and limiter.on-missing-key is skip
     * @throws dev.limiter.spring.MissingRateLimitKeyException when the key is missing and limiter.on-missing-key is reject
     */
    @Nullable Call call(EvaluationContext context) {
        if (when != null && !Boolean.TRUE.equals(when.getValue(context, Boolean.class))) {
            return null;
        }
        if (unless != null && Boolean.TRUE.equals(unless.getValue(context, Boolean.class))) {
            return null;
        }
        String keyText = (key != null) ? KeysAndCosts.keyOrMissing(KeysAndCosts.text(key.getValue(context)), onMissingKey,
                limiter().name(), keySource) : "";
        if (keyText == null) {
            return null;
        }
        long permits = (cost != null) ? KeysAndCosts.permits(cost.getValue(context), cost.getExpressionString(), site) : fixedCost;
        if (plans == null) {
            return new Call(keyText, permits, null);
        }
        KeyContext request = plans.hasPlanResolver() ? new KeyContext(null, new Object[0], null, context.lookupVariable(ServedRequest.REQUEST),
                (Principal) context.lookupVariable(ServedRequest.PRINCIPAL), (String) context.lookupVariable(ServedRequest.CLIENT_IP)) : null;
        return new Call(keyText, permits, plans.limitOf(keyText, context, request));
    }

    @Override
    public RateLimiter limiter() {
        return limiter.get();
    }

    /**
     * The limiter to decide {@code call} with, reporting its rejections as what becomes of them under
     * the rule: the rule's limiter, or that of the plan the request picked; null when it is unlimited.
     */
    @Nullable RateLimiter decidingLimiter(Call call) {
        return (call.limit() != null) ? call.limit().deciding() : deciding.get();
    }

    /** The limiter that decides {@code call}, as the registry holds it; null when it is unlimited. */
    @Nullable RateLimiter limiter(Call call) {
        return (call.limit() != null) ? call.limit().limiter() : limiter.get();
    }

    @Override
    public String site() {
        return site;
    }

    @Override
    public boolean shadow() {
        return shadow;
    }

    @Override
    public boolean hasFallback() {
        return false;
    }

    /** The RateLimit header fields announcing the limits of {@code call}; null when it is unlimited. */
    @Nullable RateLimitHeaderFields headerFields(Call call) {
        if (call.limit() != null) {
            return call.limit().headerFields();
        }
        RateLimitHeaderFields known = headerFields;
        RateLimitHeaderFields fields = RateLimitHeaderFields.current(known, this.limiter.get());
        if (fields != known) {
            headerFields = fields;
        }
        return fields;
    }

    @Override
    public String toString() {
        return site;
    }

    /**
     * The key a request is limited under and the permits it takes.
     *
     * @param limit the limit of the plan the request picked; null for a limiter without plans
     */
    record Call(String key, long cost, @Nullable AppliedLimit limit) {

        /** The plan the request picked; null for a limiter without plans and for unlimited keys. */
        @Nullable String plan() {
            return (limit != null) ? limit.plan() : null;
        }
    }
}
