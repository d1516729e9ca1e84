package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The exception keeps its decision wherever it goes, serialized to another JVM included. */
class RateLimitExceededExceptionTests {

    @Test
    void keepsItsDecisionThroughSerialization() throws IOException, ClassNotFoundException {
        LimitSpec perSecond = LimitSpec.of(5, Duration.ofSeconds(1));
        Decision decision = new Decision(false, 5, 0, Duration.ofMillis(800), Duration.ofMillis(800), Duration.ofMillis(200), Duration.ZERO,
                perSecond, DecisionSource.REDIS);
        RateLimitExceededException thrown = new RateLimitExceededException("orders", decision);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(thrown);
        }
        RateLimitExceededException read;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            read = (RateLimitExceededException) in.readObject();
        }
        assertThat(read.getDecision()).isEqualTo(decision);
        assertThat(read.getDecision().violatedLimit()).isEqualTo(perSecond);
        assertThat(read.getLimiterName()).isEqualTo("orders");
        assertThat(read.getMessage()).isEqualTo("Rate limit 'orders' exceeded: limit 5, retry after 200 ms");
    }

    @Test
    void namesThePlanThatRejected() throws IOException, ClassNotFoundException {
        Decision decision = new Decision(false, 5, 0, Duration.ofMillis(800), Duration.ofMillis(200));
        RateLimitExceededException thrown = new RateLimitExceededException("api", "free", decision);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(thrown);
        }
        RateLimitExceededException read;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            read = (RateLimitExceededException) in.readObject();
        }
        assertThat(read.getPlan()).isEqualTo("free");
        assertThat(read.getMessage()).isEqualTo("Rate limit 'api' (plan 'free') exceeded: limit 5, retry after 200 ms");
        assertThat(new RateLimitExceededException("api", decision).getPlan()).isNull();
    }
}
