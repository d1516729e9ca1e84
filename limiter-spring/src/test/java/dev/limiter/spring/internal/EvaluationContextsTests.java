package dev.limiter.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.http.HttpHeaders;

/** Limiter's evaluation contexts: a request's headers indexed by name, as gateway keys are written. */
class EvaluationContextsTests {

    private final Expression key = EvaluationContexts.parser(null).parseExpression("#headers['X-Api-Key']");

    private static StandardEvaluationContext context(HttpHeaders headers) {
        StandardEvaluationContext context = EvaluationContexts.sharingLookups(new StandardEvaluationContext());
        context.setVariable("headers", headers);
        return context;
    }

    @Test
    void indexingHeadersByNameGivesTheFirstValueEvenOnceCompiled() {
        HttpHeaders headers = new HttpHeaders();
        headers.add("x-api-key", "a");
        headers.add("X-Api-Key", "b");
        // Evaluated often enough for SpEL to compile the expression (MIXED mode) on the way.
        for (int i = 0; i < 500; i++) {
            assertThat(key.getValue(context(headers))).isEqualTo("a");
        }
    }

    @Test
    void withoutLimitersContextsSpringSevenCannotIndexHeadersByName() {
        StandardEvaluationContext plain = new StandardEvaluationContext();
        plain.setVariable("headers", new HttpHeaders());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> key.getValue(plain))
            .isInstanceOf(org.springframework.expression.spel.SpelEvaluationException.class);
    }

    @Test
    void aMissingHeaderIsNull() {
        assertThat(key.getValue(context(new HttpHeaders()))).isNull();
    }

    @Test
    void otherIndexingIsUnchanged() {
        StandardEvaluationContext context = EvaluationContexts.sharingLookups(new StandardEvaluationContext());
        context.setVariable("map", java.util.Map.of("k", "v"));
        context.setVariable("list", java.util.List.of("x", "y"));
        assertThat(EvaluationContexts.parser(null).parseExpression("#map['k'] + #list[1]").getValue(context)).isEqualTo("vy");
    }
}
