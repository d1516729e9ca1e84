package dev.limiter.autoconfigure.instances;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.RateLimited;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * One instance of an application limited through Redis, run as a JVM of its own by {@link Instances}:
 * a non-web Spring Boot application with every auto-configuration on the classpath (Spring Data Redis,
 * Limiter, Micrometer) and one {@code @RateLimited} method per algorithm, each a limiter named after its
 * algorithm. Limits, key prefix and Redis connection come from the command line
 * ({@code --limiter.limiters.gcra.limit=50} and so on).
 *
 * <p>Once its context is up it prints {@value #READY} and then reads commands from standard input, one
 * per line, answering each with one {@link InstanceResult} line on standard output (see
 * {@link InstanceCommands}). It exits on {@code quit} or at the end of its input, so it never outlives
 * the test that started it.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class InstanceApp {

    /** Printed once the application context is up. */
    static final String READY = "instance-ready";

    /** The limiters, named after their algorithms; each is one method of {@link Calls}. */
    static final List<String> LIMITERS = List.of("fixed-window", "sliding-window", "sliding-log", "token-bucket",
            "leaky-bucket", "gcra");

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(InstanceApp.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        application.setDefaultProperties(Map.of("logging.config", "classpath:dev/limiter/autoconfigure/instances/instance-logback.xml"));
        int status = 0;
        try (ConfigurableApplicationContext context = application.run(args);
                InstanceCommands commands = new InstanceCommands(Calls.byLimiter(context.getBean(Calls.class)),
                        context.getBean(RateLimiterRegistry.class), context.getBean(DecisionCounter.class))) {
            System.out.println(READY);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.strip().equals("quit"); line = in.readLine()) {
                if (!line.isBlank()) {
                    System.out.println(commands.run(line.strip()));
                }
            }
        }
        catch (Throwable ex) {
            ex.printStackTrace(System.out);
            status = 1;
        }
        System.out.flush();
        // Lettuce and pool threads must not keep a finished instance alive.
        System.exit(status);
    }

    @Bean
    Calls calls() {
        return new Calls();
    }

    @Bean
    DecisionCounter decisionCounter() {
        return new DecisionCounter();
    }

    /**
     * One limited method per algorithm, on one key each call. The algorithm given here is overridden by
     * {@code limiter.limiters.<name>.algorithm} like any other value; the tests set it to the same.
     */
    public static class Calls {

        @RateLimited(name = "fixed-window", key = "#key", algorithm = Algorithm.FIXED_WINDOW)
        public void fixedWindow(String key) {
        }

        @RateLimited(name = "sliding-window", key = "#key", algorithm = Algorithm.SLIDING_WINDOW)
        public void slidingWindow(String key) {
        }

        @RateLimited(name = "sliding-log", key = "#key", algorithm = Algorithm.SLIDING_LOG)
        public void slidingLog(String key) {
        }

        @RateLimited(name = "token-bucket", key = "#key", algorithm = Algorithm.TOKEN_BUCKET)
        public void tokenBucket(String key) {
        }

        @RateLimited(name = "leaky-bucket", key = "#key", algorithm = Algorithm.LEAKY_BUCKET)
        public void leakyBucket(String key) {
        }

        @RateLimited(name = "gcra", key = "#key", algorithm = Algorithm.GCRA)
        public void gcra(String key) {
        }

        /** Calls through the bean's proxy, by limiter name (a call from inside the bean would bypass the limiter). */
        static Map<String, LimitedCall> byLimiter(Calls proxy) {
            return Map.of("fixed-window", proxy::fixedWindow, "sliding-window", proxy::slidingWindow, "sliding-log",
                    proxy::slidingLog, "token-bucket", proxy::tokenBucket, "leaky-bucket", proxy::leakyBucket, "gcra", proxy::gcra);
        }

    }

    /** One call of a limited method for a key. */
    @FunctionalInterface
    interface LimitedCall {

        void call(String key);

    }

    /** Counts every decision by what made it, so that an instance can tell how many Redis did not make. */
    static class DecisionCounter implements DecisionListener {

        private final Map<DecisionSource, LongAdder> counts = new ConcurrentHashMap<>();

        /** What made the calling thread's last decision: listeners hear a decision on the caller's thread. */
        private final ThreadLocal<DecisionSource> last = new ThreadLocal<>();

        @Override
        public void onDecision(DecisionEvent event) {
            Decision decision = event.decision();
            if (decision != null) {
                this.counts.computeIfAbsent(decision.source(), (source) -> new LongAdder()).increment();
                this.last.set(decision.source());
            }
        }

        /** What made this thread's last decision, then forgets it; null when none was heard since. */
        DecisionSource takeLast() {
            DecisionSource source = this.last.get();
            this.last.remove();
            return source;
        }

        /** The counts so far, by source. */
        Map<DecisionSource, Long> snapshot() {
            Map<DecisionSource, Long> snapshot = new EnumMap<>(DecisionSource.class);
            this.counts.forEach((source, count) -> snapshot.put(source, count.sum()));
            return snapshot;
        }

    }

}
