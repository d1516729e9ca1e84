package dev.limiter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Bucket4j's Redis integration with Lettuce, as its documentation sets it up: a compare-and-swap
 * proxy manager on one shared connection, a token bucket of the same rate and burst as Limiter's,
 * keys expiring once the bucket would be full again.
 */
@State(Scope.Benchmark)
public class Bucket4jRedisBenchmark {

    @Param
    public Workload workload;

    private RedisClient client;

    private StatefulRedisConnection<byte[], byte[]> connection;

    private BooleanSupplier decider;

    @Setup(Level.Trial)
    public void setUp(Tally tally) {
        BenchRedis redis = BenchRedis.get();
        client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
        connection = client.connect(ByteArrayCodec.INSTANCE);
        ProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(connection)
            .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
            .build();
        BucketConfiguration configuration = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(workload.burst()).refillGreedy(workload.limit(), workload.window()))
            .build();
        Supplier<BucketConfiguration> config = () -> configuration;
        if (workload == Workload.UNIFORM_KEYS) {
            byte[][] keys = new byte[Workload.KEY_COUNT][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = ("bucket4j:" + Workload.key(i)).getBytes(StandardCharsets.UTF_8);
            }
            // Keys prepared as bytes, as Limiter's are prepared as strings: both pick one at random per call.
            decider = () -> buckets.getProxy(keys[ThreadLocalRandom.current().nextInt(keys.length)], config).tryConsume(1);
        }
        else {
            BucketProxy bucket = buckets.getProxy(("bucket4j:" + workload.nextKey()).getBytes(StandardCharsets.UTF_8), config);
            decider = () -> bucket.tryConsume(1);
        }
        tally.watchRedis();
    }

    @Benchmark
    public boolean decide(Tally tally) {
        boolean allowed = decider.getAsBoolean();
        tally.count(allowed);
        return allowed;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        connection.close();
        client.shutdown();
    }
}
