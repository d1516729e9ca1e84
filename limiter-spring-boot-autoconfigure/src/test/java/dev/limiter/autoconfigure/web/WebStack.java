package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import com.jayway.jsonpath.JsonPath;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.test.autoconfigure.SpringBootMockMvcBuilderCustomizer;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.test.web.servlet.setup.DefaultMockMvcBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * What the cases that Spring MVC and WebFlux share need of a stack: an application to configure and
 * run, and a client that sends their requests to it and reads every answer alike. Each twin's
 * subclass of the cases supplies its stack with {@link #mvc} or {@link #webFlux}.
 */
final class WebStack {

    /**
     * Header from which the WebFlux applications' test filter sets the socket's peer: a test client
     * binds no socket.
     */
    static final String PEER_HEADER = "X-Test-Peer";

    /** Header from which the WebFlux applications' test filter sets the exchange's principal. */
    static final String PRINCIPAL_HEADER = "X-Test-User";

    private WebStack() {
    }

    /** A case: requests through {@code client} to the application of {@code context}. */
    @FunctionalInterface
    interface Case {

        void run(Client client, ApplicationContext context) throws Exception;
    }

    /** An application of one stack under test, configured as a context runner is, each step a new one. */
    interface Application {

        Application withPropertyValues(String... properties);

        Application withUserConfiguration(Class<?>... configurations);

        <T> Application withBean(String name, Class<T> type, Supplier<T> bean);

        /** Runs {@code test} on the application, which must have started. */
        void run(Case test);

        /** Runs {@code test} on the application's context, started or failed. */
        void runContext(Consumer<ApplicationContext> test);
    }

    /**
     * A Spring MVC application: MockMvc with the application's servlet filters in their order, as
     * {@code @AutoConfigureMockMvc} has it.
     */
    static Application mvc(WebApplicationContextRunner runner) {
        return new RunnerApplication<>(runner, (context) -> {
            DefaultMockMvcBuilder builder = MockMvcBuilders.webAppContextSetup(context);
            new SpringBootMockMvcBuilderCustomizer(context).customize(builder);
            return mvcClient(MockMvcTester.create(builder.build()));
        });
    }

    /** A WebFlux application: a WebTestClient bound to the context, with the application's web filters. */
    static Application webFlux(ReactiveWebApplicationContextRunner runner) {
        return new RunnerApplication<>(runner, (context) -> webFluxClient(WebTestClient.bindToApplicationContext(context).build()));
    }

    /** An application of a context runner, and how the stack's client reaches a started one. */
    private record RunnerApplication<R extends AbstractApplicationContextRunner<R, C, A>, C extends ConfigurableApplicationContext,
            A extends ApplicationContextAssertProvider<C>>(R runner, Function<A, Client> client) implements Application {

        @Override
        public Application withPropertyValues(String... properties) {
            return new RunnerApplication<>(runner.withPropertyValues(properties), client);
        }

        @Override
        public Application withUserConfiguration(Class<?>... configurations) {
            return new RunnerApplication<>(runner.withUserConfiguration(configurations), client);
        }

        @Override
        public <T> Application withBean(String name, Class<T> type, Supplier<T> bean) {
            return new RunnerApplication<>(runner.withBean(name, type, bean), client);
        }

        @Override
        public void run(Case test) {
            runner.run((context) -> {
                assertThat(context).hasNotFailed();
                test.run(client.apply(context), context);
            });
        }

        @Override
        public void runContext(Consumer<ApplicationContext> test) {
            runner.run(test::accept);
        }
    }

    /**
     * MockMvc's way of sending a request: the peer as the request's remote address, the principal as
     * its user principal. An exception no handler answered comes back as a 500 carrying it, as a
     * servlet container would answer it.
     */
    private static Client mvcClient(MockMvcTester mvc) {
        return new Client((request) -> {
            MockMvcRequestBuilder builder = mvc.method(request.method).uri(request.uri);
            request.headers.forEach((name, values) -> values.forEach((value) -> builder.header(name, value)));
            String peer = request.peer;
            if (peer != null) {
                builder.with((servletRequest) -> {
                    servletRequest.setRemoteAddr(peer);
                    return servletRequest;
                });
            }
            String principal = request.principal;
            if (principal != null) {
                builder.principal(() -> principal);
            }
            MvcTestResult result = builder.exchange();
            Throwable failure = result.getUnresolvedException();
            if (failure != null) {
                return new Answer(HttpStatus.INTERNAL_SERVER_ERROR.value(), new HttpHeaders(), "", failure);
            }
            MockHttpServletResponse response = result.getResponse();
            HttpHeaders headers = new HttpHeaders();
            for (String name : response.getHeaderNames()) {
                headers.addAll(name, response.getHeaders(name));
            }
            return new Answer(response.getStatus(), headers, new String(response.getContentAsByteArray(), StandardCharsets.UTF_8), null);
        });
    }

    /** WebTestClient's way: the peer and the principal in the headers the applications' test filters read. */
    private static Client webFluxClient(WebTestClient client) {
        return new Client((request) -> {
            WebTestClient.RequestBodySpec spec = client.method(request.method).uri(request.uri)
                .headers((headers) -> headers.addAll(request.headers));
            if (request.peer != null) {
                spec = spec.header(PEER_HEADER, request.peer);
            }
            if (request.principal != null) {
                spec = spec.header(PRINCIPAL_HEADER, request.principal);
            }
            EntityExchangeResult<byte[]> result = spec.exchange().expectBody().returnResult();
            byte[] body = result.getResponseBody();
            return new Answer(result.getStatus().value(), result.getResponseHeaders(),
                    (body != null) ? new String(body, StandardCharsets.UTF_8) : "", null);
        });
    }

    /** Sends the cases' requests through one stack. */
    static final class Client {

        private final Function<Request, Answer> send;

        private Client(Function<Request, Answer> send) {
            this.send = send;
        }

        Request get(String uri) {
            return new Request(this, HttpMethod.GET, uri);
        }

        Request post(String uri) {
            return new Request(this, HttpMethod.POST, uri);
        }

        Request head(String uri) {
            return new Request(this, HttpMethod.HEAD, uri);
        }

        Request options(String uri) {
            return new Request(this, HttpMethod.OPTIONS, uri);
        }
    }

    /** A request of a case: method, path, headers, and who sends it. */
    static final class Request {

        private final Client client;

        private final HttpMethod method;

        private final String uri;

        private final HttpHeaders headers = new HttpHeaders();

        private @Nullable String peer;

        private @Nullable String principal;

        private Request(Client client, HttpMethod method, String uri) {
            this.client = client;
            this.method = method;
            this.uri = uri;
        }

        /** Sent from {@code address}: the socket's peer. */
        Request from(String address) {
            this.peer = address;
            return this;
        }

        /** Sent by {@code name}: the request's own principal, not Spring Security's authentication. */
        Request principal(String name) {
            this.principal = name;
            return this;
        }

        Request header(String name, String value) {
            headers.add(name, value);
            return this;
        }

        /** With HTTP Basic credentials. */
        Request basic(String user, String password) {
            headers.setBasicAuth(user, password);
            return this;
        }

        Answer send() {
            return client.send.apply(this);
        }
    }

    /**
     * What came back, with the checks the cases make of it.
     *
     * @param failure what the handler threw that nothing answered, where the stack hands it back
     *     (MockMvc); null otherwise
     */
    record Answer(int status, HttpHeaders headers, String body, @Nullable Throwable failure) {

        Answer hasStatus(HttpStatus expected) {
            assertThat(status).as("status of the answer with body '%s'", body).isEqualTo(expected.value());
            return this;
        }

        Answer isOk() {
            return hasStatus(HttpStatus.OK);
        }

        /** Not 429: whatever else the stack answers. */
        Answer isNotRejected() {
            assertThat(status).as("status").isNotEqualTo(HttpStatus.TOO_MANY_REQUESTS.value());
            return this;
        }

        Answer hasHeader(String name, String value) {
            assertThat(headers.getOrEmpty(name)).as("header %s", name).containsExactly(value);
            return this;
        }

        Answer hasHeaderStartingWith(String name, String start) {
            assertThat(headers.getFirst(name)).as("header %s", name).startsWith(start);
            return this;
        }

        Answer hasNoHeader(String name) {
            assertThat(headers.containsHeader(name)).as("header %s present", name).isFalse();
            return this;
        }

        Answer hasBody(String text) {
            assertThat(body).isEqualTo(text);
            return this;
        }

        /** The value at {@code path} of the JSON body. */
        Object json(String path) {
            return JsonPath.read(body, path);
        }

        Answer hasJson(String path, Object value) {
            assertThat(json(path)).as("%s of %s", path, body).isEqualTo(value);
            return this;
        }

        /**
         * A server error, for an exception that nothing answered; where the stack hands the exception
         * back, its root cause is a {@code type} that passes {@code check}.
         */
        <T extends Throwable> Answer failedWith(Class<T> type, Consumer<T> check) {
            hasStatus(HttpStatus.INTERNAL_SERVER_ERROR);
            if (failure != null) {
                assertThat(failure).rootCause().isInstanceOfSatisfying(type, check::accept);
            }
            return this;
        }
    }
}
