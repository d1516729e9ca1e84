package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Tests of {@code @RateLimited} interception on the in-memory backend, with time from a virtual clock, in a plain Spring application ({@link EnableRateLimiting}). */
class RateLimitInterceptionTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner()
        .withBean(VirtualClock.class, VirtualClock::new);

    @Test
    void rejectsOnceTheLimitIsReachedWithoutCallingTheMethod() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            User alice = new User("alice");
            assertThat(orders.list(alice)).isEqualTo("orders of alice");
            assertThat(orders.list(alice)).isEqualTo("orders of alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(alice))
                .satisfies((ex) -> {
                    assertThat(ex.getLimiterName()).isEqualTo("orders");
                    Decision decision = ex.getDecision();
                    assertThat(decision.rejected()).isTrue();
                    assertThat(decision.limit()).isEqualTo(2);
                    assertThat(decision.remaining()).isZero();
                    // Token bucket of 2 per minute: one token every 30 s, and the clock stands still.
                    assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(30));
                });
            assertThat(orders.calls()).isEqualTo(2);
        });
    }

    @Test
    void advancingTheClockRefills() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            VirtualClock clock = context.getBean(VirtualClock.class);
            User alice = new User("alice");
            orders.list(alice);
            orders.list(alice);
            clock.advance(Duration.ofSeconds(29));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(alice))
                .satisfies((ex) -> assertThat(ex.getDecision().retryAfter()).isEqualTo(Duration.ofSeconds(1)));
            clock.advance(Duration.ofSeconds(1));
            orders.list(alice);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(alice));
        });
    }

    @Test
    void keyFromARecordPropertyLimitsEachKeySeparately() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            orders.list(new User("alice"));
            orders.list(new User("alice"));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(new User("alice")));
            assertThat(orders.list(new User("bob"))).isEqualTo("orders of bob");
        });
    }

    @Test
    void keyFromParameterIndex() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            orders.byIndex("acme");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.byIndex("acme"));
            orders.byIndex("globex");
        });
    }

    @Test
    void keyFromABeanMethod() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            // Both regions belong to one tenant, so they share its limit.
            orders.byTenant("eu");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.byTenant("us"));
            orders.byTenant("asia");
        });
    }

    @Test
    void keyEvaluatingToNullIsRejectedAsAnError() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            assertThatIllegalArgumentException().isThrownBy(() -> orders.list(new User(null)))
                .withMessageContaining("#user.id")
                .withMessageContaining("null");
            assertThat(orders.calls()).isEqualTo(0);
        });
    }

    @Test
    void emptyKeySharesOneLimitAcrossCallers() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            orders.shared("alice");
            orders.shared("bob");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.shared("carol"));
        });
    }

    @Test
    void costTakesThatManyPermits() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            User alice = new User("alice");
            orders.export(alice, 3);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.export(alice, 3))
                .satisfies((ex) -> assertThat(ex.getDecision().remaining()).isEqualTo(2));
            orders.export(alice, 2);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.export(alice, 1));
        });
    }

    @Test
    void costAboveTheCapacityCanNeverPass() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.export(new User("alice"), 6))
                .satisfies((ex) -> assertThat(ex.getDecision().neverAllowed()).isTrue());
        });
    }

    @Test
    void costOfZeroIsAnError() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            assertThatIllegalArgumentException().isThrownBy(() -> orders.export(new User("alice"), 0))
                .withMessageContaining("#rows")
                .withMessageContaining("evaluated to 0")
                .withMessageContaining("OrderService.export(User, int)");
            assertThat(orders.calls()).isEqualTo(0);
        });
    }

    @Test
    void classProxyLimits() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            assertThat(AopUtils.isCglibProxy(orders)).isTrue();
            orders.byIndex("acme");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.byIndex("acme"));
        });
    }

    @Test
    void interfaceProxyLimitsWithTheAnnotationOnTheImplementation() {
        this.contextRunner.withUserConfiguration(GreetingConfiguration.class).run((context) -> {
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();
            assertThat(greeter.greet("alice")).isEqualTo("Hello alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.greet("alice"))
                .satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("greetings"));
            greeter.greet("bob");
        });
    }

    @Test
    void interfaceProxyLimitsWithTheAnnotationOnTheInterface() {
        this.contextRunner.withUserConfiguration(GreetingConfiguration.class).run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(AopUtils.isJdkDynamicProxy(quotes)).isTrue();
            quotes.quote("ACME");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> quotes.quote("ACME"))
                .satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("quotes"));
            quotes.quote("GLBX");
        });
    }

    @Test
    void typeLevelAnnotationLimitsPublicMethodsOnly() {
        this.contextRunner.withUserConfiguration(CatalogConfiguration.class).run((context) -> {
            CatalogService catalog = context.getBean(CatalogService.class);
            // The class proxy answers equals and hashCode itself; toString reaches the target.
            for (int i = 0; i < 3; i++) {
                catalog.internal();
                assertThat(catalog.toString()).isEqualTo("catalog");
                catalog.hashCode();
                catalog.equals(catalog);
            }
            catalog.browse();
            // Public methods of the type share its limiter.
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(catalog::details)
                .satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("catalog"));
        });
    }

    @Test
    void methodAnnotationOverridesTheTypeAnnotation() {
        this.contextRunner.withUserConfiguration(CatalogConfiguration.class).run((context) -> {
            CatalogService catalog = context.getBean(CatalogService.class);
            for (int i = 0; i < 3; i++) {
                catalog.search();
            }
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(catalog::search)
                .satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("search"));
            catalog.browse();
        });
    }

    record User(String id) {
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

        @Bean
        Tenants tenants() {
            return new Tenants();
        }

    }

    static class OrderService {

        private final AtomicInteger calls = new AtomicInteger();

        /** Calls that reached the method; a field read on the class proxy would see the proxy's own field. */
        public int calls() {
            return this.calls.get();
        }

        @RateLimited(name = "orders", key = "#user.id", limit = 2, window = "1m")
        public String list(User user) {
            this.calls.incrementAndGet();
            return "orders of " + user.id();
        }

        @RateLimited(name = "by-index", key = "#p0", limit = 1, window = "1m")
        public void byIndex(String customer) {
        }

        @RateLimited(name = "by-tenant", key = "@tenants.of(#region)", limit = 1, window = "1m")
        public void byTenant(String region) {
        }

        @RateLimited(name = "shared", limit = 2, window = "1m")
        public void shared(String caller) {
        }

        @RateLimited(name = "export", key = "#user.id", limit = 5, window = "1m", cost = "#rows")
        public void export(User user, int rows) {
            this.calls.incrementAndGet();
        }

    }

    static class Tenants {

        public String of(String region) {
            return region.equals("asia") ? "globex" : "acme";
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsConfiguration {

        @Bean
        ReportService reportService() {
            return new ReportService();
        }

    }

    static class ReportService {

        @RateLimited(name = "reports", algorithm = Algorithm.FIXED_WINDOW, limit = 2, window = "1m")
        public void daily() {
        }

        @RateLimited(name = "bursty", limit = 2, window = "1m", burst = 6)
        public void burst() {
        }

    }

    /** Names its parameter differently from the implementation, whose names the key uses. */
    interface Greeter {

        String greet(String who);

    }

    static class PoliteGreeter implements Greeter {

        @Override
        @RateLimited(name = "greetings", key = "#name", limit = 1, window = "1m")
        public String greet(String name) {
            return "Hello " + name;
        }

    }

    interface Quotes {

        @RateLimited(name = "quotes", key = "#symbol", limit = 1, window = "1m")
        String quote(String symbol);

    }

    static class FixedQuotes implements Quotes {

        @Override
        public String quote(String symbol) {
            return symbol + " 100";
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class GreetingConfiguration {

        @Bean
        Greeter greeter() {
            return new PoliteGreeter();
        }

        @Bean
        Quotes quotes() {
            return new FixedQuotes();
        }

    }

    @Test
    void typeLevelAnnotationLeavesObjectMethodsOfAnInterfaceProxyAlone() {
        this.contextRunner.withUserConfiguration(CatalogConfiguration.class).run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(AopUtils.isJdkDynamicProxy(inventory)).isTrue();
            for (int i = 0; i < 3; i++) {
                assertThat(inventory.toString()).isEqualTo("inventory");
                inventory.equals(inventory);
                inventory.hashCode();
            }
            inventory.count();
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(inventory::count);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class CatalogConfiguration {

        @Bean
        CatalogService catalogService() {
            return new CatalogService();
        }

        @Bean
        Inventory inventory() {
            return new WarehouseInventory();
        }

    }

    @RateLimited(name = "catalog", limit = 1, window = "1m")
    static class CatalogService {

        public void browse() {
        }

        public void details() {
        }

        @RateLimited(name = "search", limit = 3, window = "1m")
        public void search() {
        }

        void internal() {
        }

        @Override
        public String toString() {
            return "catalog";
        }

    }

    /** Declares equals, hashCode and toString, so that the interface proxy passes them to the target. */
    interface Inventory {

        int count();

        @Override
        boolean equals(Object other);

        @Override
        int hashCode();

        @Override
        String toString();

    }

    @RateLimited(name = "inventory", limit = 1, window = "1m")
    static class WarehouseInventory implements Inventory {

        @Override
        public int count() {
            return 7;
        }

        @Override
        public boolean equals(Object other) {
            return other == this;
        }

        @Override
        public int hashCode() {
            return 42;
        }

        @Override
        public String toString() {
            return "inventory";
        }

    }

}
