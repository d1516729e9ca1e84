package dev.limiter.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter (JUnit 5 and later) extension that passes {@link TestRedis#shared()} to any {@link TestRedis} parameter of a
 * test class constructor, lifecycle method or test method. {@link RedisTest} registers it along with the
 * {@code redis} tag, and is the usual way to use it.
 *
 * <pre>{@code
 * @RedisTest   // or @ExtendWith(TestRedisExtension.class)
 * class OrdersLimitTests {
 *     @Test
 *     void rejectsTheEleventhCall(TestRedis redis) { ... redis.url() ... }
 * }
 * }</pre>
 */
public final class TestRedisExtension implements ParameterResolver {

    /** Creates the extension; JUnit does this for {@code @ExtendWith(TestRedisExtension.class)}. */
    public TestRedisExtension() {
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TestRedis.class;
    }

    @Override
    public TestRedis resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return TestRedis.shared();
    }
}
