package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.limiter.Outcome;
import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.AsyncInterceptionTests.RecordedOutcomes;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Observable;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.core.SingleObserver;
import io.reactivex.rxjava3.observers.TestObserver;
import io.reactivex.rxjava3.subscribers.TestSubscriber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@code @RateLimited} methods returning RxJava 3 types, limited through Spring's
 * ReactiveAdapterRegistry on Redis' reactive API: each subscription decided (a {@code Single} like a
 * {@code Mono}, a {@code Flowable} or {@code Observable} like a {@code Flux}, a {@code Completable}
 * with no value), rejections as error signals, fallbacks of the same type, every decision recorded once.
 */
@RedisTest
@Timeout(60)
class RxJavaInterceptionTests {

    private static final long WAIT_SECONDS = 10;

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner().onRedis()
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean(RecordedOutcomes.class, RecordedOutcomes::new)
        .withUserConfiguration(RxQuotesConfiguration.class);

    @Test
    void singleIsDecidedOnSubscriptionNotWhenAssembled() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            Single<String> first = quotes.quote("ACME");
            Single<String> second = quotes.quote("ACME");
            Single<String> third = quotes.quote("ACME");
            assertThat(quotes.calls()).as("the method assembles each").isEqualTo(3);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).as("no decision yet").isEmpty();
            assertThat(third.blockingGet()).isEqualTo("ACME 100");
            assertThat(first.blockingGet()).isEqualTo("ACME 100");
            TestObserver<String> rejected = second.test();
            rejected.await(WAIT_SECONDS, TimeUnit.SECONDS);
            rejected.assertNoValues().assertError((ex) -> ex instanceof RateLimitExceededException limit
                    && limit.getLimiterName().equals("rx-quotes") && limit.getDecision().retryAfter().equals(Duration.ofSeconds(30)));
            assertThat(quotes.subscriptions()).as("the rejected one never reached the method's Single").isEqualTo(2);
            // Subscribing again is decided again.
            TestObserver<String> again = first.test();
            again.await(WAIT_SECONDS, TimeUnit.SECONDS);
            again.assertError(RateLimitExceededException.class);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED,
                    Outcome.REJECTED, Outcome.REJECTED);
        });
    }

    @Test
    void flowableIsDecidedOnSubscriptionAndRejectedBeforeAnyElement() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            Flowable<Integer> ticks = quotes.ticks("ACME");
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).isEmpty();
            TestSubscriber<Integer> allowed = ticks.test();
            allowed.await(WAIT_SECONDS, TimeUnit.SECONDS);
            allowed.assertValues(1, 2, 3).assertComplete();
            TestSubscriber<Integer> rejected = ticks.test();
            rejected.await(WAIT_SECONDS, TimeUnit.SECONDS);
            rejected.assertNoValues().assertError(RateLimitExceededException.class);
            assertThat(quotes.subscriptions()).isEqualTo(1);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.REJECTED);
        });
    }

    @Test
    void observableAndCompletableAreLimitedToo() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            Observable<Integer> prices = quotes.prices("ACME");
            assertThat(prices.toList().blockingGet()).containsExactly(10, 11);
            TestObserver<Integer> rejectedPrices = prices.test();
            rejectedPrices.await(WAIT_SECONDS, TimeUnit.SECONDS);
            rejectedPrices.assertNoValues().assertError(RateLimitExceededException.class);
            Completable refresh = quotes.refresh("ACME");
            assertThat(quotes.subscriptions()).isZero();
            refresh.blockingAwait(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(quotes.subscriptions()).isEqualTo(1);
            TestObserver<Void> rejectedRefresh = refresh.test();
            rejectedRefresh.await(WAIT_SECONDS, TimeUnit.SECONDS);
            rejectedRefresh.assertError(RateLimitExceededException.class);
            assertThat(quotes.subscriptions()).isEqualTo(1);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.REJECTED,
                    Outcome.ALLOWED, Outcome.REJECTED);
        });
    }

    @Test
    void missingKeyIsAnErrorSignalAndTheMethodIsNotCalled() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            TestObserver<String> missing = quotes.quote("").test();
            missing.await(WAIT_SECONDS, TimeUnit.SECONDS);
            missing.assertError(MissingRateLimitKeyException.class);
            TestSubscriber<Integer> missingTicks = quotes.ticks("").test();
            missingTicks.await(WAIT_SECONDS, TimeUnit.SECONDS);
            missingTicks.assertError(MissingRateLimitKeyException.class);
            assertThat(quotes.calls()).isZero();
            // Undecided, each call is heard once, as an error.
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ERROR, Outcome.ERROR);
        });
    }

    @Test
    void fallbacksAnswerRejectedSubscriptionsWithTheSameType() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            assertThat(quotes.fresh("ACME").blockingGet()).isEqualTo("fresh ACME");
            assertThat(quotes.fresh("ACME").blockingGet()).isEqualTo("cached ACME after 60 s");
            assertThat(quotes.freshTicks("ACME").toList().blockingGet()).containsExactly(1);
            assertThat(quotes.freshTicks("ACME").toList().blockingGet()).containsExactly(-1, -2);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.FALLBACK, Outcome.ALLOWED,
                    Outcome.FALLBACK);
        });
    }

    @Test
    void shadowModeLetsRejectedSubscriptionsThrough() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            for (int i = 0; i < 3; i++) {
                assertThat(quotes.observed("ACME").blockingGet()).isEqualTo("observed ACME");
            }
            assertThat(context.getBean(RecordedOutcomes.class).outcomes).containsExactly(Outcome.ALLOWED, Outcome.SHADOW_REJECTED,
                    Outcome.SHADOW_REJECTED);
        });
    }

    /**
     * One permit an hour and max-wait of an hour, the clock standing still: the second subscription
     * waits an hour for its turn on a timer (Reactor's, in virtual time here), no thread blocked.
     */
    @Test
    void maxWaitDelaysTheSubscriptionWithoutBlocking() {
        this.contextRunner.run((context) -> {
            RxQuotes quotes = context.getBean(RxQuotes.class);
            VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
            try {
                assertThat(quotes.paced("ACME").blockingGet()).isEqualTo("paced ACME");
                long scheduled = time.getScheduledTaskCount();
                AtomicReference<String> result = new AtomicReference<>();
                quotes.paced("ACME").subscribe(result::set);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (time.getScheduledTaskCount() == scheduled && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(time.getScheduledTaskCount()).as("the decision arrived and the wait was scheduled").isGreaterThan(scheduled);
                assertThat(quotes.subscriptions()).as("still waiting for its turn").isEqualTo(1);
                time.advanceTimeBy(Duration.ofMinutes(59));
                assertThat(result.get()).isNull();
                time.advanceTimeBy(Duration.ofMinutes(1));
                assertThat(result.get()).isEqualTo("paced ACME");
                assertThat(quotes.subscriptions()).isEqualTo(2);
            }
            finally {
                VirtualTimeScheduler.reset();
            }
        });
    }

    @Test
    void aSubtypeOfSingleFailsStartup() {
        this.contextRunner.withUserConfiguration(OwnSingleConfiguration.class).run((context) -> {
            assertThat(context.startupFailure()).isNotNull();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited on OwnSingles.job(String)")
                .hasMessageContaining(Job.class.getName())
                .hasMessageContaining("Declare the method's return type as Single");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class RxQuotesConfiguration {

        @Bean
        RxQuotes rxQuotes() {
            return new RxQuotes();
        }

    }

    static class RxQuotes {

        /** Calls that reached a method: assemblies. */
        private final AtomicInteger calls = new AtomicInteger();

        /** Subscriptions that reached a method's publisher. */
        private final AtomicInteger subscriptions = new AtomicInteger();

        /** Read through methods: a field read on the class proxy would see the proxy's own field. */
        public int calls() {
            return this.calls.get();
        }

        public int subscriptions() {
            return this.subscriptions.get();
        }

        @RateLimited(name = "rx-quotes", key = "#symbol", limit = 2, window = "1m")
        public Single<String> quote(String symbol) {
            this.calls.incrementAndGet();
            return Single.fromCallable(() -> {
                this.subscriptions.incrementAndGet();
                return symbol + " 100";
            });
        }

        @RateLimited(name = "rx-ticks", key = "#symbol", limit = 1, window = "1m")
        public Flowable<Integer> ticks(String symbol) {
            this.calls.incrementAndGet();
            return Flowable.range(1, 3).doOnSubscribe((s) -> this.subscriptions.incrementAndGet());
        }

        @RateLimited(name = "rx-prices", key = "#symbol", limit = 1, window = "1m")
        public Observable<Integer> prices(String symbol) {
            return Observable.just(10, 11);
        }

        @RateLimited(name = "rx-refresh", key = "#symbol", limit = 1, window = "1m")
        public Completable refresh(String symbol) {
            return Completable.fromRunnable(this.subscriptions::incrementAndGet);
        }

        @RateLimited(name = "rx-fresh", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "cachedQuote")
        public Single<String> fresh(String symbol) {
            return Single.just("fresh " + symbol);
        }

        Single<String> cachedQuote(String symbol, RateLimitExceededException ex) {
            return Single.just("cached " + symbol + " after " + ex.getDecision().retryAfter().toSeconds() + " s");
        }

        @RateLimited(name = "rx-fresh-ticks", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "noTicks")
        public Flowable<Integer> freshTicks(String symbol) {
            return Flowable.just(1);
        }

        private Flowable<Integer> noTicks(String symbol) {
            return Flowable.just(-1, -2);
        }

        @RateLimited(name = "rx-paced", key = "#symbol", limit = 1, window = "1h", maxWait = "1h")
        public Single<String> paced(String symbol) {
            return Single.fromCallable(() -> {
                this.subscriptions.incrementAndGet();
                return "paced " + symbol;
            });
        }

        @RateLimited(name = "rx-observed", key = "#symbol", limit = 1, window = "1m", shadow = true)
        public Single<String> observed(String symbol) {
            return Single.just("observed " + symbol);
        }

    }

    static class Job extends Single<String> {

        @Override
        protected void subscribeActual(SingleObserver<? super String> observer) {
            Single.just("job").subscribe(observer);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class OwnSingleConfiguration {

        @Bean
        OwnSingles ownSingles() {
            return new OwnSingles();
        }

    }

    static class OwnSingles {

        @RateLimited(name = "rx-jobs", key = "#id", limit = 1, window = "1m")
        public Job job(String id) {
            return new Job();
        }

    }

}
