/**
 * Limiter on the calls an application makes: {@link dev.limiter.outgoing.LimiterClientHttpRequestInterceptor}
 * for {@code RestClient} and {@code RestTemplate}, {@link dev.limiter.outgoing.LimiterExchangeFilterFunction}
 * for {@code WebClient}, auto-configured from {@code limiter.outgoing} by
 * {@link dev.limiter.outgoing.LimiterHttpClientAutoConfiguration}. Nothing here is null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.limiter.outgoing;

import org.jspecify.annotations.NullMarked;
