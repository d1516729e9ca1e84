package dev.limiter.spring.internal;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.ClassUtils;

/**
 * How Limiter's expressions (keys, costs, plans, rule conditions) are parsed and evaluated, evaluated
 * once per call or request:
 * <ul>
 * <li>Parsed to be compiled ({@link SpelCompilerMode#MIXED}): after some calls SpEL compiles an
 * expression to bytecode, so a method call such as {@code #request.getHeader('X-User-Id')} no longer
 * converts its arguments by reflection on every request; an expression that compiled code cannot
 * evaluate (say its types change from one call to the next) is interpreted again, as before.</li>
 * <li>One property accessor for all contexts. SpEL's reflective accessor remembers the getters it
 * found in itself, and a context makes its own when first asked: with a context per call, an
 * expression reading a property ({@code #user.id}) looked its getter up again on every call.</li>
 * <li>A request's headers indexed by name, {@code #request.headers['X-Api-Key']}, give the header's
 * first value: since Spring Framework 7 {@code HttpHeaders} is no longer a map SpEL can index (see
 * {@link HttpHeadersIndexAccessor}). Present only with spring-web on the class path.</li>
 * </ul>
 * The system property {@code spring.expression.compiler.mode} still applies to other parsers, not to these.
 */
public final class EvaluationContexts {

    /** Thread-safe: the accessor keeps what it found in concurrent maps. Never changed. */
    private static final List<PropertyAccessor> PROPERTY_ACCESSORS = List.of(new ReflectivePropertyAccessor());

    /** Thread-safe: the accessors are stateless. Never changed. */
    private static final List<IndexAccessor> INDEX_ACCESSORS = ClassUtils.isPresent("org.springframework.http.HttpHeaders",
            EvaluationContexts.class.getClassLoader()) ? List.of(new HttpHeadersIndexAccessor()) : List.of();

    private EvaluationContexts() {
    }

    /**
     * A parser of Limiter's expressions, compiling them once they run often.
     *
     * @param classLoader where compiled expressions find the types they name (the application's); null for the default
     */
    public static SpelExpressionParser parser(@Nullable ClassLoader classLoader) {
        return new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
    }

    /** {@code context}, reading properties through the shared accessor and indexing headers by name. */
    public static <C extends StandardEvaluationContext> C sharingLookups(C context) {
        context.setPropertyAccessors(PROPERTY_ACCESSORS);
        context.setIndexAccessors(INDEX_ACCESSORS);
        return context;
    }
}
