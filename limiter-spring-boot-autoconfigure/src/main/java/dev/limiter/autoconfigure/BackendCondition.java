package dev.limiter.autoconfigure;

import dev.limiter.autoconfigure.LimiterProperties.Backend;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches unless {@code limiter.backend} is {@code memory}: the Redis backend may be used. */
class BackendCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Backend backend = Binder.get(context.getEnvironment()).bind("limiter.backend", Backend.class).orElse(Backend.AUTO);
        return (backend != Backend.MEMORY) ? ConditionOutcome.match("limiter.backend is " + backend)
                : ConditionOutcome.noMatch("limiter.backend is memory");
    }
}
