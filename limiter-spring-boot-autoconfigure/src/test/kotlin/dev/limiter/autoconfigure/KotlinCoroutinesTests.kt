package dev.limiter.autoconfigure

import dev.limiter.Outcome
import dev.limiter.RateLimitExceededException
import dev.limiter.spring.MissingRateLimitKeyException
import dev.limiter.spring.RateLimited
import dev.limiter.test.RedisTest
import dev.limiter.test.VirtualClock
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/**
 * `@RateLimited` Kotlin `suspend` functions and functions returning a `Flow`, on Redis through its
 * reactive API: a suspend function decided when called, before its body runs, a `Flow` on each
 * collection; a rejection is the `RateLimitExceededException` thrown to the caller or collector.
 */
@RedisTest
@Timeout(60)
class KotlinCoroutinesTests {

    private val contextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
            TaskExecutionAutoConfiguration::class.java, LimiterAutoConfiguration::class.java))
        .withPropertyValues(*TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues("limiter.redis.timeout=5s")
        .withBean(VirtualClock::class.java, { VirtualClock() })
        .withBean(RecordedOutcomes::class.java, { RecordedOutcomes() })
        .withUserConfiguration(KotlinQuotesConfiguration::class.java)

    @Test
    fun suspendFunctionIsDecidedBeforeItsBodyRuns() {
        contextRunner.run { context ->
            val quotes = context.getBean(KotlinQuotes::class.java)
            runBlocking {
                assertThat(quotes.quote("ACME")).isEqualTo("ACME 100")
                assertThat(quotes.quote("ACME")).isEqualTo("ACME 100")
                val rejected = assertThrows<RateLimitExceededException> { quotes.quote("ACME") }
                assertThat(rejected.limiterName).isEqualTo("kt-quotes")
                assertThat(rejected.decision.retryAfter()).isEqualTo(Duration.ofSeconds(30))
                // Another key has its own permits.
                assertThat(quotes.quote("INIT")).isEqualTo("INIT 100")
            }
            assertThat(quotes.bodies()).`as`("the rejected call never ran the function's body").isEqualTo(3)
            assertThat(context.getBean(RecordedOutcomes::class.java).outcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED,
                Outcome.REJECTED, Outcome.ALLOWED)
        }
    }

    @Test
    fun suspendFunctionFallbackAnswersARejectedCall() {
        contextRunner.run { context ->
            val quotes = context.getBean(KotlinQuotes::class.java)
            runBlocking {
                assertThat(quotes.fresh("ACME")).isEqualTo("fresh ACME")
                assertThat(quotes.fresh("ACME")).isEqualTo("cached ACME after 60 s")
            }
            assertThat(context.getBean(RecordedOutcomes::class.java).outcomes).containsExactly(Outcome.ALLOWED, Outcome.FALLBACK)
        }
    }

    @Test
    fun suspendFunctionWithAMissingKeyFailsWithoutRunning() {
        contextRunner.run { context ->
            val quotes = context.getBean(KotlinQuotes::class.java)
            runBlocking {
                assertThrows<MissingRateLimitKeyException> { quotes.quote("") }
            }
            assertThat(quotes.bodies()).isZero()
        }
    }

    @Test
    fun flowIsDecidedOnEachCollectionNotWhenReturned() {
        contextRunner.run { context ->
            val quotes = context.getBean(KotlinQuotes::class.java)
            val ticks = quotes.ticks("ACME")
            assertThat(context.getBean(RecordedOutcomes::class.java).outcomes).`as`("no decision yet").isEmpty()
            runBlocking {
                assertThat(ticks.toList()).containsExactly(1, 2, 3)
                assertThrows<RateLimitExceededException> { ticks.toList() }
            }
            assertThat(quotes.bodies()).`as`("the rejected collection never reached the function's flow").isEqualTo(1)
            assertThat(context.getBean(RecordedOutcomes::class.java).outcomes).containsExactly(Outcome.ALLOWED, Outcome.REJECTED)
        }
    }

    @Configuration(proxyBeanMethods = false)
    open class KotlinQuotesConfiguration {

        @Bean
        open fun kotlinQuotes() = KotlinQuotes()

    }

    open class KotlinQuotes {

        /** Times a function's body ran: for a Flow, collections that reached it. */
        private val bodies = AtomicInteger()

        open fun bodies() = bodies.get()

        @RateLimited(name = "kt-quotes", key = "#symbol", limit = 2, window = "1m")
        open suspend fun quote(symbol: String): String {
            bodies.incrementAndGet()
            return "$symbol 100"
        }

        @RateLimited(name = "kt-fresh", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "cachedQuote")
        open suspend fun fresh(symbol: String): String = "fresh $symbol"

        open suspend fun cachedQuote(symbol: String, ex: RateLimitExceededException): String =
            "cached $symbol after ${ex.decision.retryAfter().toSeconds()} s"

        @RateLimited(name = "kt-ticks", key = "#symbol", limit = 1, window = "1m")
        open fun ticks(symbol: String): Flow<Int> = flow {
            bodies.incrementAndGet()
            emit(1)
            emit(2)
            emit(3)
        }

    }

}
