package dev.limiter.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.web.LimiterWebFluxAutoConfiguration;
import dev.limiter.autoconfigure.web.LimiterWebMvcAutoConfiguration;
import dev.limiter.spring.internal.web.RateLimitRuleFilter;
import dev.limiter.spring.internal.web.RateLimitRuleWebFilter;

import jakarta.servlet.FilterChain;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.web.context.reactive.AnnotationConfigReactiveWebApplicationContext;
import org.springframework.boot.web.context.servlet.AnnotationConfigServletWebApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockServletContext;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * A request limited by a rule of {@code limiter.rules}, in Spring MVC (the servlet filter) and in WebFlux
 * (the {@code WebFilter}), memory backend, metrics and observations on, against the same limiter's
 * public API: what the rule path adds per request. Every request is allowed (the limit is never
 * reached), so each also gets its RateLimit header fields. The request objects are mocks, made once
 * per thread and reused (a mock WebFlux exchange costs about 10 µs to make, far more than what is
 * measured); {@link Step#CHAIN} passes them through the chain without Limiter.
 */
@State(Scope.Benchmark)
public class RequestPathBenchmark {

    /** The web stack the request goes through. */
    public enum Stack {
        MVC, WEBFLUX
    }

    /** What one measured call does. */
    public enum Step {
        /** {@code limiter.tryAcquire(key)} on the rule's limiter: the public API. */
        API,
        /** The request through the filter chain without Limiter's filter. */
        CHAIN,
        /** The request through Limiter's rule filter, then the chain. */
        RULE
    }

    static final String LIMITER = "requests";

    @Param
    public Stack stack;

    @Param
    public Step step;

    private ConfigurableApplicationContext context;

    private RateLimiter limiter;

    private RateLimitRuleFilter servletFilter;

    private RateLimitRuleWebFilter webFilter;

    private static final FilterChain SERVLET_CHAIN = (request, response) -> {
    };

    private static final WebFilterChain WEB_CHAIN = (exchange) -> Mono.empty();

    @Setup(Level.Trial)
    public void setUp() {
        List<String> properties = List.of("limiter.backend=memory", "limiter.limiters." + LIMITER + ".algorithm=token-bucket",
                // Never reached: every request is allowed and announces its RateLimit fields.
                "limiter.limiters." + LIMITER + ".limit=1000000000", "limiter.limiters." + LIMITER + ".window=1s",
                "limiter.rules[0].paths=/api/**", "limiter.rules[0].limiter=" + LIMITER,
                "limiter.rules[0].key=" + ((stack == Stack.MVC) ? "#request.getHeader('X-User-Id')" : "#request.headers.getFirst('X-User-Id')"));
        if (stack == Stack.MVC) {
            AnnotationConfigServletWebApplicationContext servlet = new AnnotationConfigServletWebApplicationContext();
            servlet.setServletContext(new MockServletContext());
            context = servlet;
            servlet.register(ServletApp.class);
        }
        else {
            AnnotationConfigReactiveWebApplicationContext reactive = new AnnotationConfigReactiveWebApplicationContext();
            context = reactive;
            reactive.register(ReactiveApp.class);
        }
        Map<String, Object> values = new LinkedHashMap<>();
        properties.forEach((property) -> values.put(property.substring(0, property.indexOf('=')), property.substring(property.indexOf('=') + 1)));
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark", values));
        context.refresh();
        limiter = context.getBean(RateLimiterRegistry.class).get(LIMITER);
        if (stack == Stack.MVC) {
            servletFilter = (RateLimitRuleFilter) context.getBean("rateLimitRuleFilter", FilterRegistrationBean.class).getFilter();
        }
        else {
            webFilter = context.getBean(RateLimitRuleWebFilter.class);
        }
        Requests warming = new Requests();
        warming.setUp();
        Decider decider = (key) -> call(warming);
        decider.warmUp(Workload.HOT_KEY, InProcessBenchmark.PER_CORE_WARMUP);
        if (step == Step.RULE && !warming.response.containsHeader("RateLimit") && !warming.exchange.getResponse().getHeaders().containsHeader("RateLimit")) {
            throw new IllegalStateException("The rule did not limit the request: no RateLimit header field");
        }
    }

    /** One thread's servlet request and response, and WebFlux exchange, reused by its calls. */
    @State(Scope.Thread)
    public static class Requests {

        MockHttpServletRequest request;

        MockHttpServletResponse response;

        MockServerWebExchange exchange;

        @Setup(Level.Trial)
        public void setUp() {
            request = new MockHttpServletRequest("GET", "/api/orders");
            request.addHeader("X-User-Id", "hot");
            response = new MockHttpServletResponse();
            exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/api/orders").header("X-User-Id", "hot"));
        }
    }

    @Benchmark
    public boolean request(Requests requests) throws Exception {
        return call(requests);
    }

    private boolean call(Requests requests) {
        try {
            return switch (step) {
                case API -> limiter.tryAcquire("hot").allowed();
                case CHAIN -> (stack == Stack.MVC) ? servletChain(requests) : webChain(requests, false);
                case RULE -> (stack == Stack.MVC) ? servletRule(requests) : webChain(requests, true);
            };
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private boolean servletChain(Requests requests) throws Exception {
        SERVLET_CHAIN.doFilter(requests.request, requests.response);
        return requests.response.getStatus() == 200;
    }

    private boolean servletRule(Requests requests) throws Exception {
        servletFilter.doFilter(requests.request, requests.response, SERVLET_CHAIN);
        return requests.response.getStatus() == 200;
    }

    private boolean webChain(Requests requests, boolean rule) {
        MockServerWebExchange exchange = requests.exchange;
        Mono<Void> done = rule ? webFilter.filter(exchange, WEB_CHAIN) : WEB_CHAIN.filter(exchange);
        done.block(Duration.ofSeconds(10));
        return exchange.getResponse().getHeaders().containsHeader("RateLimit") == rule;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class })
    @Import(AnnotatedApp.Metrics.class)
    static class ServletApp {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class })
    @Import(AnnotatedApp.Metrics.class)
    static class ReactiveApp {
    }
}
