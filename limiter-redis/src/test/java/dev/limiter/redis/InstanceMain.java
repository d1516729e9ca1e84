package dev.limiter.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One application instance for {@link ManyInstancesTests}, run in a JVM of its own: hammers one key
 * of a Redis limiter from several threads and prints how many calls were admitted, and its own
 * clock, so the test can see that the instances' clocks disagree.
 *
 * <p>Arguments: host, port, key prefix, limiter name, threads, calls per thread, limit.
 */
public final class InstanceMain {

    private InstanceMain() {
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String prefix = args[2];
        String name = args[3];
        int threads = Integer.parseInt(args[4]);
        int calls = Integer.parseInt(args[5]);
        long limit = Long.parseLong(args[6]);
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        connections.afterPropertiesSet();
        connections.start();
        StringRedisTemplate redis = new StringRedisTemplate(connections);
        // No explicit clock: the scripts read Redis TIME, which is the point of the test.
        RateLimiter limiter = RedisRateLimiterFactory.builder(redis).keyPrefix(prefix)
            .failurePolicy(FailurePolicy.DENY).localLimiters(new InMemoryRateLimiterFactory()).expectedInstances(1).build()
            .create(name, Algorithm.FIXED_WINDOW, LimitSpec.of(limit, LimitSpec.MAX_WINDOW));
        // Start together: JVMs start at different speeds, and the first could otherwise take the
        // whole limit before the others begin. Each says it is ready, then waits for the test's go.
        redis.opsForValue().increment(prefix + ":ready");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (redis.opsForValue().get(prefix + ":go") == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no go from the test within 60 s");
            }
            Thread.sleep(2);
        }
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(executor.submit(() -> {
                start.await();
                int admitted = 0;
                for (int i = 0; i < calls; i++) {
                    if (limiter.tryAcquire("shared-key").allowed()) {
                        admitted++;
                    }
                }
                return admitted;
            }));
        }
        start.countDown();
        int admitted = 0;
        for (Future<Integer> result : results) {
            admitted += result.get(2, TimeUnit.MINUTES);
        }
        executor.shutdownNow();
        connections.destroy();
        System.out.println("admitted=" + admitted + " clock=" + System.currentTimeMillis());
    }
}
