package dev.limiter.spring.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ConstructorResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeComparator;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.TypeLocator;
import org.springframework.expression.TypedValue;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The context one request's expressions are evaluated in: its variables {@code #request},
 * {@code #principal} and {@code #clientIp} in fields, everything else (accessors, resolvers, types,
 * {@code @bean} references) from a context all requests share. A {@link StandardEvaluationContext} per
 * request made a concurrent map for its variables and put each into it, a tenth of a rule's cost per
 * request ({@code RequestPathBenchmark}). Not thread-safe: one per request.
 */
public final class RequestVariables implements EvaluationContext {

    private final StandardEvaluationContext shared;

    private final @Nullable Object request;

    private final @Nullable Object principal;

    private final @Nullable Object clientIp;

    /** Variables an expression assigned, {@code #x = ...}; null until one does. */
    private @Nullable Map<String, @Nullable Object> assigned;

    /**
     * @param shared what every request shares, from {@link #shared(BeanResolver)}
     */
    public RequestVariables(StandardEvaluationContext shared, @Nullable Object request, @Nullable Object principal, @Nullable Object clientIp) {
        this.shared = shared;
        this.request = request;
        this.principal = principal;
        this.clientIp = clientIp;
    }

    /**
     * What the contexts of all requests share: made once, then only read. Everything a standard context
     * makes when first asked is made here, so that concurrent requests only read it.
     *
     * @param beanResolver what {@code @bean} references name; null for none
     */
    public static StandardEvaluationContext shared(@Nullable BeanResolver beanResolver) {
        StandardEvaluationContext shared = EvaluationContexts.sharingLookups(new StandardEvaluationContext());
        if (beanResolver != null) {
            shared.setBeanResolver(beanResolver);
        }
        shared.getConstructorResolvers();
        shared.getMethodResolvers();
        shared.getTypeLocator();
        shared.getTypeConverter();
        shared.getTypeComparator();
        shared.getOperatorOverloader();
        return shared;
    }

    @Override
    public TypedValue getRootObject() {
        return TypedValue.NULL;
    }

    @Override
    public List<PropertyAccessor> getPropertyAccessors() {
        return shared.getPropertyAccessors();
    }

    @Override
    public List<IndexAccessor> getIndexAccessors() {
        return shared.getIndexAccessors();
    }

    @Override
    public List<ConstructorResolver> getConstructorResolvers() {
        return shared.getConstructorResolvers();
    }

    @Override
    public List<MethodResolver> getMethodResolvers() {
        return shared.getMethodResolvers();
    }

    @Override
    public @Nullable BeanResolver getBeanResolver() {
        return shared.getBeanResolver();
    }

    @Override
    public TypeLocator getTypeLocator() {
        return shared.getTypeLocator();
    }

    @Override
    public TypeConverter getTypeConverter() {
        return shared.getTypeConverter();
    }

    @Override
    public TypeComparator getTypeComparator() {
        return shared.getTypeComparator();
    }

    @Override
    public OperatorOverloader getOperatorOverloader() {
        return shared.getOperatorOverloader();
    }

    @Override
    public void setVariable(String name, @Nullable Object value) {
        if (assigned == null) {
            assigned = new HashMap<>(4);
        }
        assigned.put(name, value);
    }

    @Override
    public @Nullable Object lookupVariable(String name) {
        if (assigned != null && assigned.containsKey(name)) {
            return assigned.get(name);
        }
        return switch (name) {
            case ServedRequest.REQUEST -> request;
            case ServedRequest.PRINCIPAL -> principal;
            case ServedRequest.CLIENT_IP -> clientIp;
            default -> null;
        };
    }
}
