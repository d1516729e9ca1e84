package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.CalendarWindow;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RetunePolicy;

import org.jspecify.annotations.Nullable;

/**
 * The arguments an algorithm's script takes and the reply it gives, as {@code decision-prelude.lua}
 * states them: ARGV is time (empty for Redis {@code TIME}), permits, max-wait, the algorithm's
 * parameter, then limit, window and burst of each limit; the reply is the decision's numbers. One per
 * configuration, immutable; the Redis limiters encode and decode through it.
 */
final class ScriptCodec {

    /** The time argument that has the script read Redis {@code TIME}. Never modified by callers. */
    static final byte[] REDIS_TIME = new byte[0];

    /** Numbers 0 to 63 as UTF-8, the permits and indexes most calls send. Never modified by callers. */
    private static final byte[][] SMALL_NUMBERS = new byte[64][];

    static {
        for (int i = 0; i < SMALL_NUMBERS.length; i++) {
            SMALL_NUMBERS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final RateLimiterConfig config;

    private final String[] template;

    /** The template's arguments from the third on as UTF-8, computed once; never modified by callers. */
    private final byte[][] fixedBytes;

    private final String fingerprint;

    private ScriptCodec(RateLimiterConfig config) {
        this.config = config;
        List<LimitSpec> limits = config.limits();
        String[] args = new String[4 + 3 * limits.size()];
        args[2] = Long.toString(config.maxWaitMicros());
        args[3] = (config.algorithm() == Algorithm.SLIDING_WINDOW) ? Integer.toString(config.subWindows()) : "";
        for (int i = 0; i < limits.size(); i++) {
            LimitSpec limit = limits.get(i);
            args[4 + 3 * i] = Long.toString(limit.limit());
            args[5 + 3 * i] = Long.toString(limit.windowMicros());
            args[6 + 3 * i] = Long.toString(limit.burst());
        }
        boolean calendar = false;
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).calendar() != null) {
                // Stands for the boundaries in the fingerprint; each call sends those around its time.
                args[5 + 3 * i] = limits.get(i).calendar().toString();
                calendar = true;
            }
        }
        this.calendar = calendar;
        this.template = args;
        this.fixedBytes = new byte[args.length - 2][];
        for (int i = 2; i < args.length; i++) {
            fixedBytes[i - 2] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        if (config.onRetune() == RetunePolicy.KEEP) {
            // The shape of the state alone (the algorithm is in the key's tag): keys continue across
            // changes of limits, bursts and max-wait, on every instance alike and across restarts.
            List<String> shape = new ArrayList<>();
            shape.add("keep");
            shape.add(args[3]);
            for (LimitSpec limit : limits) {
                shape.add((limit.calendar() != null) ? limit.calendar().toString() : Long.toString(limit.windowMicros()));
            }
            this.fingerprint = fingerprint(shape.toArray(String[]::new));
        }
        else {
            this.fingerprint = fingerprint(args);
        }
    }

    /** Whether a limit has a calendar window, whose boundaries each call sends (see {@link #withBoundaries}). */
    private final boolean calendar;

    /** Boundaries sent for calendar windows: the last computed, reused while the time stays within an hour after it. */
    private volatile @Nullable Boundaries boundaries;

    /** How long computed boundaries are reused: the slack they cover beyond {@link CalendarWindow#MAX_CLOCK_SKEW}. */
    private static final Duration REUSE = Duration.ofHours(1);

    private record Boundaries(long fromMicros, String[] args, byte[][] fixedBytes) {
    }

    /**
     * The arguments with each calendar window's boundaries around {@code nowMicros} (the application's
     * clock when null, Redis deciding by its own TIME among them): computed at most once an hour.
     */
    private Boundaries withBoundaries(@Nullable Long nowMicros) {
        long now = (nowMicros != null) ? nowMicros : System.currentTimeMillis() * 1_000L;
        Boundaries cached = boundaries;
        if (cached != null && now >= cached.fromMicros() && now - cached.fromMicros() < REUSE.toNanos() / 1_000) {
            return cached;
        }
        String[] args = template.clone();
        byte[][] bytes = fixedBytes.clone();
        List<LimitSpec> limits = config.limits();
        for (int i = 0; i < limits.size(); i++) {
            CalendarWindow window = limits.get(i).calendar();
            if (window != null) {
                StringBuilder text = new StringBuilder();
                for (long start : window.boundaries(now, REUSE)) {
                    text.append((text.length() > 0) ? "," : "").append(start);
                }
                args[5 + 3 * i] = text.toString();
                bytes[3 + 3 * i] = args[5 + 3 * i].getBytes(StandardCharsets.US_ASCII);
            }
        }
        Boundaries computed = new Boundaries(now, args, bytes);
        boundaries = computed;
        return computed;
    }

    /** The codec of {@code config}'s script calls. */
    static ScriptCodec of(RateLimiterConfig config) {
        return new ScriptCodec(config);
    }

    /**
     * The script's arguments for a request of {@code permits} (0 reads the quota).
     *
     * @param nowMicros the time to decide at, or null for Redis' own {@code TIME}, as in production
     */
    String[] arguments(@Nullable Long nowMicros, long permits) {
        String[] args = calendar ? withBoundaries(nowMicros).args().clone() : template.clone();
        args[0] = (nowMicros != null) ? Long.toString(nowMicros) : "";
        args[1] = Long.toString(permits);
        return args;
    }

    /**
     * The script's arguments to charge {@code permits} that the failure policy admitted while Redis
     * did not answer: a decision that waits as long as it takes, so the permits are taken whatever the
     * limit says, as a waiting caller takes them (at most the capacity, which a decision can take).
     */
    String[] chargeArguments(@Nullable Long nowMicros, long permits) {
        String[] args = arguments(nowMicros, permits);
        args[2] = CHARGE_WAIT;
        return args;
    }

    /** A max-wait beyond any wait a script computes (2^53 - 1 us, the largest whole number a Lua double holds). */
    private static final String CHARGE_WAIT = "9007199254740991";

    /** Number of arguments of every call of this configuration's script. */
    int argumentCount() {
        return template.length;
    }

    /**
     * The arguments from the third on (max-wait, the algorithm's parameter, the limits) as UTF-8: the
     * same for every call of this configuration, so encoded once, but for calendar windows' boundaries,
     * which are those around {@code nowMicros} (null: the application's clock). Never modified by callers.
     */
    byte[][] fixedArguments(@Nullable Long nowMicros) {
        return calendar ? withBoundaries(nowMicros).fixedBytes() : fixedBytes;
    }

    /** The arguments of {@link #arguments(Long, long)} as UTF-8, the fixed ones encoded once for all calls. */
    byte[][] argumentBytes(@Nullable Long nowMicros, long permits) {
        byte[][] args = new byte[template.length][];
        args[0] = timeBytes(nowMicros);
        args[1] = numberBytes(permits);
        byte[][] fixed = fixedArguments(nowMicros);
        System.arraycopy(fixed, 0, args, 2, fixed.length);
        return args;
    }

    /** The time argument as UTF-8: {@link #REDIS_TIME} for none. */
    static byte[] timeBytes(@Nullable Long nowMicros) {
        return (nowMicros != null) ? numberBytes(nowMicros) : REDIS_TIME;
    }

    /** {@code number} as the script reads it, UTF-8 digits; small ones shared. Never modified by callers. */
    static byte[] numberBytes(long number) {
        return (number >= 0 && number < SMALL_NUMBERS.length) ? SMALL_NUMBERS[(int) number]
                : Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Short digest of what the state of a key depends on, part of every key. With
     * {@link RetunePolicy#RESET}, the whole configuration: after a change of limits the old state is
     * simply not read again (and expires), so it can never enforce the old limits. With
     * {@link RetunePolicy#KEEP}, the shape of the state only (windows, sub-windows), so that a change of
     * limits, bursts or max-wait continues each key's state. Two configurations of one algorithm have
     * the same fingerprint exactly when {@link RateLimiterConfig#keepsStateOf} says so.
     */
    String fingerprint() {
        return fingerprint;
    }

    /** The decision of a script's reply, made by Redis. */
    Decision decision(List<?> reply) {
        return Decision.of(config, number(reply, 0), number(reply, 1), number(reply, 2), number(reply, 3), number(reply, 4), number(reply, 5),
                number(reply, 6), number(reply, 7), DecisionSource.REDIS);
    }

    /** Whether the reply is a hold's rejection (decision-prelude.lua, KEYS[2]): violated limit -1. */
    static boolean heldByHold(List<?> reply) {
        return number(reply, 5) == -1;
    }

    /** The 1-based index of the limit a reply reports on. */
    static int reportedLimit(List<?> reply) {
        return (int) number(reply, 1);
    }

    /** Microseconds until every limit of the key is whole again, from a reply. */
    static long resetAfterMicros(List<?> reply) {
        return number(reply, 3);
    }

    /** Number {@code index} (0-based) of a reply. */
    static long number(List<?> reply, int index) {
        return ((Number) reply.get(index)).longValue();
    }

    private static String fingerprint(String[] template) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(String.join(",", template).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }
}
