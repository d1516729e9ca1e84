package dev.limiter.benchmarks;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiter;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Limiter on Redis: through its public API ({@link RedisRateLimiterFactory} on a
 * {@link StringRedisTemplate} over Lettuce, then {@code tryAcquire}), or through an annotated method
 * of a Spring Boot application; through the API also with the local deny cache, and with batching
 * (decisions that meet in flight sent as one script call).
 */
@State(Scope.Benchmark)
public class LimiterRedisBenchmark {

    /** How the application reaches the limiter. */
    public enum Path {
        /** {@code RedisRateLimiterFactory.create(...).tryAcquire(key)}. */
        API,
        /** A {@code @RateLimited} method of a bean, limits from properties. */
        ANNOTATED
    }

    /** Keys the local deny cache holds, when enabled. */
    static final int DENY_CACHE_KEYS = 10_000;

    /** Most decisions in one batch, when batching: the default of limiter.redis.batching.max-size. */
    static final int MAX_BATCH_SIZE = 64;

    @Param
    public Algorithm algorithm;

    @Param
    public Workload workload;

    @Param
    public Path path;

    @Param("false")
    public boolean denyCache;

    @Param("false")
    public boolean batching;

    private Decider decider;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp(Tally tally) {
        BenchRedis redis = BenchRedis.get();
        if (path == Path.ANNOTATED) {
            if (denyCache || batching) {
                throw new IllegalArgumentException("the deny cache and batching are measured through the public API only");
            }
            AnnotatedApp app = AnnotatedApp.onRedis(redis, algorithm, workload);
            resources.add(app);
            decider = app::call;
        }
        else {
            StringRedisTemplate template = redis.template();
            resources.add(((LettuceConnectionFactory) template.getConnectionFactory())::destroy);
            RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(template);
            if (denyCache) {
                builder.localDenyCache(DENY_CACHE_KEYS);
            }
            if (batching) {
                builder.batching(MAX_BATCH_SIZE);
            }
            RedisRateLimiterFactory factory = builder.build();
            factory.warmUp();
            resources.add(factory::close);
            RateLimiter limiter = factory.create(workload.limiterName(), workload.config(algorithm));
            decider = key -> limiter.tryAcquire(key).allowed();
        }
        tally.watchRedis();
    }

    @Benchmark
    public boolean decide(Tally tally) {
        boolean allowed = decider.decide(workload.nextKey());
        tally.count(allowed);
        return allowed;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
