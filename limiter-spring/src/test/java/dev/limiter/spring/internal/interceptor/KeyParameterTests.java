package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Set;

import dev.limiter.spring.internal.ServedRequest;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which key expressions a call reads straight from its arguments, without an evaluation context: a
 * bare reference to one parameter, resolved as SpEL resolves it in a method's context, and nothing
 * else.
 */
class KeyParameterTests {

    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private static final ParameterNameDiscoverer NO_NAMES = new ParameterNameDiscoverer() {

        @Override
        public String @Nullable [] getParameterNames(Method method) {
            return null;
        }

        @Override
        public String @Nullable [] getParameterNames(Constructor<?> constructor) {
            return null;
        }
    };

    @SuppressWarnings("unused")
    static class Calls {

        void order(String tenant, String userId) {
        }

        void request(String request) {
        }

        void root(String root) {
        }

        void many(String first, String... rest) {
        }

        void named(String p1, String other) {
        }
    }

    @Test
    void aBareReferenceToAParameterIsThatParameter() throws Exception {
        Method order = Calls.class.getDeclaredMethod("order", String.class, String.class);
        assertThat(index("#userId", order)).isEqualTo(1);
        assertThat(index("  #tenant ", order)).isEqualTo(0);
        assertThat(index("#p1", order)).isEqualTo(1);
        assertThat(index("#a0", order)).isEqualTo(0);
    }

    @Test
    void anythingMoreIsLeftToSpel() throws Exception {
        Method order = Calls.class.getDeclaredMethod("order", String.class, String.class);
        assertThat(index("#userId.length()", order)).isEqualTo(-1);
        assertThat(index("'t-' + #tenant", order)).isEqualTo(-1);
        assertThat(index("#missing", order)).isEqualTo(-1);
        assertThat(index("#p2", order)).as("no such parameter").isEqualTo(-1);
        assertThat(index("userId", order)).isEqualTo(-1);
        assertThat(index("@users.current()", order)).isEqualTo(-1);
    }

    @Test
    void requestVariablesAndSpelsOwnVariablesAreNeverAParameter() throws Exception {
        Method request = Calls.class.getDeclaredMethod("request", String.class);
        assertThat(LimitedMethod.referencedParameter("#request", request, NAMES, Set.of(ServedRequest.REQUEST))).isEqualTo(-1);
        assertThat(LimitedMethod.referencedParameter("#request", request, NAMES, Set.of())).isEqualTo(0);
        assertThat(index("#root", Calls.class.getDeclaredMethod("root", String.class))).isEqualTo(-1);
    }

    @Test
    void variableArgumentsAreLeftToSpel() throws Exception {
        Method many = Calls.class.getDeclaredMethod("many", String.class, String[].class);
        assertThat(index("#first", many)).isEqualTo(0);
        assertThat(index("#rest", many)).isEqualTo(-1);
        assertThat(index("#p1", many)).isEqualTo(-1);
    }

    @Test
    void aParameterNameWinsOverAnIndexAsInSpel() throws Exception {
        // SpEL sets p0, a0, ... first, then the names: a parameter named p1 is #p1.
        Method named = Calls.class.getDeclaredMethod("named", String.class, String.class);
        assertThat(index("#p1", named)).isEqualTo(0);
        assertThat(index("#a1", named)).isEqualTo(1);
    }

    @Test
    void withoutParameterNamesOnlyIndexesAreKnown() throws Exception {
        Method order = Calls.class.getDeclaredMethod("order", String.class, String.class);
        assertThat(LimitedMethod.referencedParameter("#userId", order, NO_NAMES, Set.of())).isEqualTo(-1);
        assertThat(LimitedMethod.referencedParameter("#p1", order, NO_NAMES, Set.of())).isEqualTo(1);
    }

    private static int index(String expression, Method method) {
        return LimitedMethod.referencedParameter(expression, method, NAMES, Set.of());
    }
}
