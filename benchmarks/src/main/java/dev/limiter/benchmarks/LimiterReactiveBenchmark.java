package dev.limiter.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiter;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Limiter on Redis through its reactive API, as a WebFlux application decides: {@code tryAcquireAsync}
 * over a {@link ReactiveStringRedisTemplate} sharing the blocking template's Lettuce connection, with
 * {@value #IN_FLIGHT} decisions in flight and no thread waiting for one. Each of {@value #IN_FLIGHT}
 * chains asks its next decision when its last one is answered, on the thread that read the answer, as
 * {@value #IN_FLIGHT} clients each sending their next request on a response would. Run by one JMH thread,
 * which only starts the chains and waits for them to end.
 */
@State(Scope.Benchmark)
public class LimiterReactiveBenchmark {

    /** Decisions in flight at once. */
    static final int IN_FLIGHT = 64;

    /** Decisions each chain asks in one benchmark call: enough that the chains' start and end are a small part. */
    static final int PER_CHAIN = 64;

    @Param
    public Algorithm algorithm;

    @Param
    public Workload workload;

    @Param("false")
    public boolean batching;

    private RateLimiter limiter;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp(Tally tally) {
        StringRedisTemplate template = BenchRedis.get().template();
        LettuceConnectionFactory connections = (LettuceConnectionFactory) template.getConnectionFactory();
        resources.add(connections::destroy);
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(template)
            .reactiveRedis(new ReactiveStringRedisTemplate(connections));
        if (batching) {
            builder.batching(LimiterRedisBenchmark.MAX_BATCH_SIZE);
        }
        RedisRateLimiterFactory factory = builder.build();
        factory.warmUp();
        resources.add(factory::close);
        limiter = factory.create(workload.limiterName(), workload.config(algorithm));
        tally.watchRedis();
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT * PER_CHAIN)
    public void decide(Tally tally) {
        CompletableFuture<?>[] chains = new CompletableFuture<?>[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            chains[i] = chain(PER_CHAIN, tally);
        }
        CompletableFuture.allOf(chains).join();
    }

    private CompletableFuture<Void> chain(int left, Tally tally) {
        return limiter.tryAcquireAsync(workload.nextKey()).toCompletableFuture().thenCompose((decision) -> {
            tally.count(decision.allowed());
            return (left > 1) ? chain(left - 1, tally) : CompletableFuture.completedFuture(null);
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
