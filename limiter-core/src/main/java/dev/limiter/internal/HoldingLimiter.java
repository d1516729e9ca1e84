package dev.limiter.internal;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;

import org.jspecify.annotations.Nullable;

/**
 * Not API, an SPI for Limiter's companion modules (the outgoing-call integration): a limiter's decisions
 * that also respect a hold on the key, which something outside the limiter asked for (an upstream's 429
 * with {@code Retry-After}). While the key is held, a request is rejected with retry-after the hold's
 * remaining time, and the limiter's state is not touched; otherwise the limiter decides as ever. On Redis
 * the decision's own script reads the hold, in the decision's one round trip, and the hold is one key
 * beside the limiter's state, in its hash tag; in memory the hold is checked in the process first.
 */
public interface HoldingLimiter {

    /**
     * The decisions of {@code limiter} that respect holds in its factory's state, when {@code limiter} is
     * one of {@code factory}'s and can read holds (a Redis limiter); null otherwise.
     */
    static @Nullable HoldingLimiter of(RateLimiter limiter, Object factory) {
        return (limiter instanceof Holdable holdable) ? holdable.holding(factory) : null;
    }

    /** Not API: a limiter whose own decisions can read holds, such as a Redis limiter. */
    interface Holdable {

        /** This limiter's decisions respecting holds, when it is one of {@code factory}'s; null otherwise. */
        @Nullable HoldingLimiter holding(Object factory);
    }

    /** The limiter deciding when the key is not held. */
    RateLimiter limiter();

    /** The limiter's decision on {@code permits} of {@code key}, or a rejection by a hold on it. */
    Answer tryAcquire(String key, long permits);

    /**
     * The same as {@link #tryAcquire}, without blocking where the limiter can: it completes with the
     * failure policy's decision when Redis fails, never exceptionally for that.
     */
    CompletionStage<Answer> tryAcquireAsync(String key, long permits);

    /**
     * How long {@code key} is still held; zero when it is not, or when the hold cannot be read (Redis
     * failing: logged). One round trip on Redis: for a caller that waited after its decision.
     */
    Duration holdRemaining(String key);

    /**
     * Holds {@code key} for {@code hold} from now (Redis' now on Redis), unless it is held longer already;
     * one round trip on Redis. A hold that cannot be stored is logged, never thrown.
     */
    void hold(String key, Duration hold);

    /** Whether {@link #holdRemaining} and {@link #hold} block on the network, so a reactive caller moves them off its thread. */
    boolean blocks();

    /**
     * A decision, and whether it is a hold's rejection.
     *
     * @param decision the limiter's decision; for a hold's rejection, retry-after is the hold's remaining time
     * @param held whether a hold on the key rejected the request, the limiter's state untouched
     */
    record Answer(Decision decision, boolean held) {
    }
}
