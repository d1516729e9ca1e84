package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.Outcome;
import dev.limiter.RateLimitExceededException;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@code @RateLimited} methods returning {@code Mono}, {@code Flux} or {@code CompletionStage}, on
 * Redis through its reactive API: decided on subscription (a stage: when called, but without
 * blocking, before the method runs), waiting on timers, falling back with the same type, and every
 * decision recorded once.
 */
@RedisTest
@Timeout(60)
class AsyncInterceptionTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner().onRedis()
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean(RecordedOutcomes.class, RecordedOutcomes::new)
        .withUserConfiguration(QuotesConfiguration.class);

    @Test
    void monoIsDecidedOnSubscriptionNotWhenAssembled() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            Mono<String> first = quotes.quote("ACME");
            Mono<String> second = quotes.quote("ACME");
            Mono<String> third = quotes.quote("ACME");
            assertThat(quotes.calls()).as("the method assembles each").isEqualTo(3);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).as("no decision yet").isEmpty();
            // Two permits: the first two subscriptions pass, whichever Mono they subscribe to.
            StepVerifier.create(third).expectNext("ACME 100").verifyComplete();
            StepVerifier.create(first).expectNext("ACME 100").verifyComplete();
            StepVerifier.create(second).expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(RateLimitExceededException.class,
                    (rejected) -> {
                        assertThat(rejected.getLimiterName()).isEqualTo("quotes");
                        assertThat(rejected.getDecision().retryAfter()).isEqualTo(Duration.ofSeconds(30));
                    }))
                .verify(Duration.ofSeconds(10));
            assertThat(quotes.subscriptions()).as("the rejected one never reached the method's Mono").isEqualTo(2);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED,
                    Outcome.REJECTED);
        });
    }

    @Test
    void everySubscriptionIsDecidedAgain() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            Mono<String> quote = quotes.quote("GLBX");
            StepVerifier.create(quote).expectNext("GLBX 100").verifyComplete();
            StepVerifier.create(quote).expectNext("GLBX 100").verifyComplete();
            StepVerifier.create(quote).expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
            assertThat(quotes.calls()).isEqualTo(1);
            assertThat(quotes.subscriptions()).isEqualTo(2);
            // Another key has its own permits.
            StepVerifier.create(quotes.quote("INIT")).expectNext("INIT 100").verifyComplete();
        });
    }

    @Test
    void fluxIsDecidedOnSubscriptionAndRejectedBeforeAnyElement() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            Flux<Integer> ticks = quotes.ticks("ACME");
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).isEmpty();
            StepVerifier.create(ticks).expectNext(1, 2, 3).verifyComplete();
            StepVerifier.create(ticks).expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
            assertThat(quotes.subscriptions()).isEqualTo(1);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.REJECTED);
        });
    }

    @Test
    void costIsTakenOnSubscription() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            StepVerifier.create(quotes.batch("ACME", 3)).expectNextCount(3).verifyComplete();
            StepVerifier.create(quotes.batch("ACME", 3)).expectErrorSatisfies((ex) -> assertThat(ex)
                .isInstanceOfSatisfying(RateLimitExceededException.class, (rejected) -> assertThat(rejected.getDecision().remaining())
                    .isEqualTo(2)))
                .verify(Duration.ofSeconds(10));
            StepVerifier.create(quotes.batch("ACME", 2)).expectNextCount(2).verifyComplete();
        });
    }

    @Test
    void missingKeyIsAnErrorSignalAndTheMethodIsNotCalled() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            StepVerifier.create(quotes.quote("")).expectError(MissingRateLimitKeyException.class).verify(Duration.ofSeconds(10));
            assertThat(quotes.calls()).isZero();
            assertThat(quotes.report("").toCompletableFuture()).isCompletedExceptionally();
            assertThat(quotes.calls()).isZero();
        });
    }

    @Test
    void monoFallbackAnswersARejectedSubscription() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            StepVerifier.create(quotes.fresh("ACME")).expectNext("fresh ACME").verifyComplete();
            StepVerifier.create(quotes.fresh("ACME")).expectNext("cached ACME after 60 s").verifyComplete();
            StepVerifier.create(quotes.freshTicks("ACME")).expectNext(1).verifyComplete();
            StepVerifier.create(quotes.freshTicks("ACME")).expectNext(-1, -2).verifyComplete();
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.FALLBACK, Outcome.ALLOWED,
                    Outcome.FALLBACK);
        });
    }

    @Test
    void shadowModeLetsRejectedSubscriptionsThrough() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            for (int i = 0; i < 3; i++) {
                StepVerifier.create(quotes.observed("ACME")).expectNext("observed ACME").verifyComplete();
            }
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.SHADOW_REJECTED,
                    Outcome.SHADOW_REJECTED);
        });
    }

    /**
     * One permit an hour and max-wait of an hour, the clock standing still: the second subscription
     * reserves the next permit and waits an hour for it on Reactor's timer. Virtual time shows that
     * it subscribes to the method's Mono exactly then, while no thread waited.
     */
    @Test
    void maxWaitDelaysTheSubscriptionWithoutBlocking() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
            try {
                StepVerifier.create(quotes.paced("ACME")).expectNext("paced ACME").verifyComplete();
                long scheduled = time.getScheduledTaskCount();
                AtomicReference<String> result = new AtomicReference<>();
                Disposable subscription = quotes.paced("ACME").subscribe(result::set);
                awaitTrue(() -> time.getScheduledTaskCount() > scheduled, "the decision arrived and the wait was scheduled");
                assertThat(quotes.subscriptions()).as("still waiting for its turn").isEqualTo(1);
                // The thread that scheduled the wait may still be running the scheduler's tasks; then
                // advanceTimeBy returns at once and that thread moves the clock: wait for it to have.
                time.advanceTimeBy(Duration.ofMinutes(59));
                awaitTrue(() -> time.now(TimeUnit.MINUTES) >= 59, "the clock moved 59 minutes");
                assertThat(result.get()).isNull();
                time.advanceTimeBy(Duration.ofMinutes(1));
                awaitTrue(() -> result.get() != null, "the hour was up");
                assertThat(result.get()).isEqualTo("paced ACME");
                assertThat(quotes.subscriptions()).isEqualTo(2);
                subscription.dispose();
            }
            finally {
                VirtualTimeScheduler.reset();
            }
        });
    }

    @Test
    void completionStageMethodIsCalledOnlyOnceDecided() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(decided(quotes.report("r1"))).isEqualTo("report r1");
            assertThat(decided(quotes.reportStage("r1"))).isEqualTo("stage r1");
            CompletableFuture<String> rejected = quotes.report("r1");
            assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> rejected.get(10, TimeUnit.SECONDS))
                .havingCause()
                .isInstanceOfSatisfying(RateLimitExceededException.class, (ex) -> assertThat(ex.getLimiterName()).isEqualTo("reports"));
            assertThat(quotes.calls()).as("the rejected call never reached the method").isEqualTo(2);
            // Never on the threads reading Redis' replies: on the caller's if decided by the time the
            // limiter returned, else on the application's task executor.
            assertThat(quotes.threads()).allSatisfy((thread) -> assertThat(thread).matches("main|task-\\d+"));
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED,
                    Outcome.REJECTED);
        });
    }

    @Test
    void completionStageFallbackAnswersARejectedCall() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(decided(quotes.archived("a1"))).isEqualTo("archived a1");
            assertThat(decided(quotes.archived("a1"))).isEqualTo("from cache a1");
        });
    }

    /** The clock stands still, so the second call waits an hour for the permit it reserved: the caller does not. */
    @Test
    void completionStageWaitsForItsTurnWithoutBlockingTheCaller() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(decided(quotes.pacedReport("ACME"))).isEqualTo("paced ACME");
            CompletableFuture<String> waiting = quotes.pacedReport("ACME");
            awaitTrue(() -> context.getBean(RecordedOutcomes.class).outcomes.size() == 2, "the second call was decided");
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED);
            assertThat(waiting).as("waiting an hour for its turn").isNotDone();
            assertThat(quotes.calls()).isEqualTo(1);
            waiting.cancel(false);
        });
    }

    /**
     * 2 a second with a burst of 1 and max-wait of 700 ms, the clock standing still: the second call
     * waits 500 ms on a timer, the third would wait too long. (Redis expires keys in real time, so
     * the state must outlive the test's real pace: here by half a second at least.)
     */
    @Test
    void completionStageProceedsOnceItsTurnComes() {
        this.contextRunner.run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(decided(quotes.quick("q"))).isEqualTo("quick q");
            assertThat(decided(quotes.quick("q"))).isEqualTo("quick q");
            CompletableFuture<String> rejected = quotes.quick("q");
            assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> rejected.get(10, TimeUnit.SECONDS))
                .havingCause()
                .isInstanceOf(RateLimitExceededException.class);
            assertThat(quotes.calls()).isEqualTo(2);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED,
                    Outcome.REJECTED);
        });
    }

    @Test
    void aFallbackOfAnotherTypeThanTheReactiveResultFailsStartup() {
        this.contextRunner.withUserConfiguration(BadFallbackConfiguration.class).run((context) -> {
            assertThat(context.startupFailure()).isNotNull();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited(fallbackMethod) on BadFallback.quote(String)")
                .hasMessageContaining("returns String")
                .hasMessageContaining("returns a Mono too")
                .hasMessageContaining("Make cachedQuote return Mono");
        });
    }

    @Test
    void aCompletionStageTypeTheLimitCannotReturnFailsStartup() {
        this.contextRunner.withUserConfiguration(OwnFutureConfiguration.class).run((context) -> {
            assertThat(context.startupFailure()).isNotNull();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited on OwnFutures.job(String)")
                .hasMessageContaining(Job.class.getName())
                .hasMessageContaining("Declare the method's return type as CompletionStage or CompletableFuture");
        });
    }

    private static String decided(CompletionStage<String> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Waits (at most 10 s) for something asynchronous to happen, such as a reply from Redis; not for time to pass. */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    /** Every recorded outcome, in order: each decision must be recorded exactly once. */
    static class RecordedOutcomes implements DecisionListener {

        final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

        @Override
        public void onDecision(DecisionEvent event) {
            outcomes.add(event.outcome());
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class QuotesConfiguration {

        @Bean
        Quotes quotes() {
            return new Quotes();
        }

    }

    static class Quotes {

        /** Calls that reached a method: for reactive methods, assemblies. */
        private final AtomicInteger calls = new AtomicInteger();

        /** Subscriptions that reached a method's publisher. */
        private final AtomicInteger subscriptions = new AtomicInteger();

        /** Threads the CompletionStage methods ran on. */
        private final List<String> threads = new CopyOnWriteArrayList<>();

        /** Read through methods: a field read on the class proxy would see the proxy's own field. */
        public int calls() {
            return this.calls.get();
        }

        public int subscriptions() {
            return this.subscriptions.get();
        }

        public List<String> threads() {
            return this.threads;
        }

        @RateLimited(name = "quotes", key = "#symbol", limit = 2, window = "1m")
        public Mono<String> quote(String symbol) {
            this.calls.incrementAndGet();
            return Mono.fromCallable(() -> {
                this.subscriptions.incrementAndGet();
                return symbol + " 100";
            });
        }

        @RateLimited(name = "ticks", key = "#symbol", limit = 1, window = "1m")
        public Flux<Integer> ticks(String symbol) {
            return Flux.range(1, 3).doOnSubscribe((s) -> this.subscriptions.incrementAndGet());
        }

        @RateLimited(name = "batches", key = "#symbol", limit = 5, window = "1m", cost = "#size")
        public Flux<Integer> batch(String symbol, int size) {
            return Flux.range(1, size);
        }

        @RateLimited(name = "fresh", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "cachedQuote")
        public Mono<String> fresh(String symbol) {
            return Mono.just("fresh " + symbol);
        }

        Mono<String> cachedQuote(String symbol, RateLimitExceededException ex) {
            return Mono.just("cached " + symbol + " after " + ex.getDecision().retryAfter().toSeconds() + " s");
        }

        @RateLimited(name = "fresh-ticks", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "noTicks")
        public Flux<Integer> freshTicks(String symbol) {
            return Flux.just(1);
        }

        private Flux<Integer> noTicks(String symbol) {
            return Flux.just(-1, -2);
        }

        @RateLimited(name = "observed", key = "#symbol", limit = 1, window = "1m", shadow = true)
        public Mono<String> observed(String symbol) {
            return Mono.just("observed " + symbol);
        }

        @RateLimited(name = "paced", key = "#symbol", limit = 1, window = "1h", maxWait = "1h")
        public Mono<String> paced(String symbol) {
            return Mono.fromCallable(() -> {
                this.subscriptions.incrementAndGet();
                return "paced " + symbol;
            });
        }

        @RateLimited(name = "reports", key = "#id", limit = 2, window = "1m")
        public CompletableFuture<String> report(String id) {
            this.calls.incrementAndGet();
            this.threads.add(Thread.currentThread().getName());
            return CompletableFuture.completedFuture("report " + id);
        }

        @RateLimited(name = "reports", key = "#id", limit = 2, window = "1m")
        public CompletionStage<String> reportStage(String id) {
            this.calls.incrementAndGet();
            this.threads.add(Thread.currentThread().getName());
            return CompletableFuture.completedFuture("stage " + id);
        }

        @RateLimited(name = "archives", key = "#id", limit = 1, window = "1m", fallbackMethod = "fromCache")
        public CompletableFuture<String> archived(String id) {
            return CompletableFuture.completedFuture("archived " + id);
        }

        CompletionStage<String> fromCache(String id) {
            return CompletableFuture.completedFuture("from cache " + id);
        }

        @RateLimited(name = "paced-reports", key = "#symbol", limit = 1, window = "1h", maxWait = "1h")
        public CompletableFuture<String> pacedReport(String symbol) {
            this.calls.incrementAndGet();
            return CompletableFuture.completedFuture("paced " + symbol);
        }

        @RateLimited(name = "quick", key = "#id", limit = 2, window = "1s", burst = 1, maxWait = "700ms")
        public CompletableFuture<String> quick(String id) {
            this.calls.incrementAndGet();
            return CompletableFuture.completedFuture("quick " + id);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadFallbackConfiguration {

        @Bean
        BadFallback badFallback() {
            return new BadFallback();
        }

    }

    static class BadFallback {

        @RateLimited(name = "bad", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "cachedQuote")
        public Mono<String> quote(String symbol) {
            return Mono.just(symbol);
        }

        String cachedQuote(String symbol) {
            return symbol;
        }

    }

    static class Job extends CompletableFuture<String> {

    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFutureConfiguration {

        @Bean
        OwnFutures ownFutures() {
            return new OwnFutures();
        }

    }

    static class OwnFutures {

        @RateLimited(name = "jobs", key = "#id", limit = 1, window = "1m")
        public Job job(String id) {
            return new Job();
        }

    }

}
