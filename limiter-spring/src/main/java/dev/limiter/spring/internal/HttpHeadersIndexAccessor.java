package dev.limiter.spring.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.AccessException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.TypedValue;
import org.springframework.http.HttpHeaders;

/**
 * Reads a header by name with SpEL's index syntax, {@code #request.headers['X-Api-Key']}: the
 * header's first value, as {@link HttpHeaders#getFirst(String)}, or null when the request has none.
 * Since Spring Framework 7 {@link HttpHeaders} is no longer a {@link java.util.Map}, and SpEL would
 * otherwise read {@code X-Api-Key} as a property of the headers and fail on every request. Stateless,
 * so one instance serves every context and thread. Read only.
 */
final class HttpHeadersIndexAccessor implements IndexAccessor {

    @Override
    public Class<?>[] getSpecificTargetClasses() {
        return new Class<?>[] { HttpHeaders.class };
    }

    @Override
    public boolean canRead(EvaluationContext context, Object target, Object index) {
        return target instanceof HttpHeaders && index instanceof String;
    }

    @Override
    public TypedValue read(EvaluationContext context, Object target, Object index) {
        String value = ((HttpHeaders) target).getFirst((String) index);
        return (value != null) ? new TypedValue(value) : TypedValue.NULL;
    }

    @Override
    public boolean canWrite(EvaluationContext context, Object target, Object index) {
        return false;
    }

    @Override
    public void write(EvaluationContext context, Object target, Object index, @Nullable Object newValue) throws AccessException {
        throw new AccessException("The request's headers are read only");
    }
}
