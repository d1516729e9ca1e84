package dev.limiter.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An instance making calls of known length under a concurrency limit, for {@link ConcurrencyAcrossJvmsTests}:
 * several threads each take a slot of key "k" through {@link ConcurrencyLimiter#acquire} (waiting), and
 * while they hold it count themselves in flight on a counter key of their own (INCR, then DECR before the
 * slot is released), which the limiter never reads. Prints "ready" once connected, starts on a line "go"
 * on its input, and prints "done calls rejected max" at the end, max being the most calls in flight the
 * counter showed this instance, across every instance.
 *
 * <p>Arguments: host, port, key prefix, limit, threads, calls per thread, call length in milliseconds,
 * counter key.
 */
public final class ConcurrencyCallerMain {

    private ConcurrencyCallerMain() {
    }

    public static void main(String[] args) throws Exception {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(args[0],
                Integer.parseInt(args[1])));
        connections.afterPropertiesSet();
        connections.start();
        StringRedisTemplate redis = new StringRedisTemplate(connections);
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(redis).keyPrefix(args[2])
            .failurePolicy(FailurePolicy.DENY).expectedInstances(1).localLimiters(new InMemoryRateLimiterFactory()).build();
        factory.warmUp();
        // No explicit clock: leases run on Redis TIME, the clock every instance shares.
        ConcurrencyLimiter limiter = factory.createConcurrencyLimiter("calls",
                ConcurrencyLimiterConfig.of(Long.parseLong(args[3])).withMaxWait(Duration.ofSeconds(30)));
        int threads = Integer.parseInt(args[4]);
        int calls = Integer.parseInt(args[5]);
        long length = Long.parseLong(args[6]);
        String counter = args[7];
        AtomicLong made = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong max = new AtomicLong();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            callers.add(new Thread(() -> {
                for (int i = 0; i < calls; i++) {
                    try (Permit permit = limiter.acquire("k")) {
                        long inFlight = redis.opsForValue().increment(counter);
                        max.accumulateAndGet(inFlight, Math::max);
                        try {
                            Thread.sleep(length);
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        finally {
                            redis.opsForValue().decrement(counter);
                        }
                        made.incrementAndGet();
                    }
                    catch (RateLimitExceededException ex) {
                        rejected.incrementAndGet();
                    }
                }
            }, "caller-" + t));
        }
        System.out.println("ready");
        System.out.flush();
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (!"go".equals(input.readLine())) {
            System.exit(2);
        }
        callers.forEach(Thread::start);
        for (Thread caller : callers) {
            caller.join();
        }
        System.out.println("done " + made.get() + " " + rejected.get() + " " + max.get());
        System.out.flush();
        limiter.close();
        factory.close();
        connections.destroy();
        System.exit(0);
    }
}
