package dev.limiter.gateway;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** A real gateway application, reactive or Server MVC, on a free port, and a client sending it requests. */
final class Gateway implements AutoCloseable {

    // HTTP/1.1, what the gateway speaks, without the h2c upgrade the client tries by default.
    private static final HttpClient CLIENT = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    // On a loaded 2-core CI machine a request to a freshly started gateway, whose first requests load and
    // compile much of its web stack, has taken over 10 s. A request that hangs still fails, after a minute.
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final ConfigurableApplicationContext context;

    private Gateway(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts a gateway of {@code type} (REACTIVE or SERVLET) with {@code properties} and the beans of {@code sources}. */
    static Gateway start(WebApplicationType type, List<String> properties, Class<?>... sources) {
        // Defaults first: a test's own properties come later and win (such as an actuator endpoint exposed).
        List<String> all = new ArrayList<>(List.of("server.port=0", "spring.main.banner-mode=off", "management.endpoints.web.exposure.include="));
        all.addAll(properties);
        Class<?>[] withApp = new Class<?>[sources.length + 1];
        withApp[0] = App.class;
        System.arraycopy(sources, 0, withApp, 1, sources.length);
        return new Gateway(new SpringApplicationBuilder(withApp).web(type).properties(all.toArray(String[]::new)).run());
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    String url() {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    HttpResponse<String> get(String path, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url() + path)).timeout(REQUEST_TIMEOUT).GET();
        headers.forEach(request::header);
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (HttpTimeoutException ex) {
            // Twice a request got no answer on a machine at load 20, not reproduced since: the gateway runs in this
            // JVM, so what its threads were doing when the client gave up goes into the failure.
            throw new IllegalStateException("GET " + path + " " + headers + " to " + url() + ": " + ex + "\n" + threads(), ex);
        }
        catch (IOException ex) {
            throw new IllegalStateException("GET " + path + " " + headers + " to " + url() + ": " + ex, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** The stacks of this JVM's threads, a dozen frames each. */
    private static String threads() {
        StringBuilder dump = new StringBuilder();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
            if (thread.getLockName() != null) {
                dump.append(" on ").append(thread.getLockName());
            }
            dump.append('\n');
            StackTraceElement[] frames = thread.getStackTrace();
            for (int i = 0; i < Math.min(frames.length, 12); i++) {
                dump.append("    at ").append(frames[i]).append('\n');
            }
        }
        return dump.toString();
    }

    HttpResponse<String> get(String path) {
        return get(path, Map.of());
    }

    @Override
    public void close() {
        context.close();
    }

    /** The application: auto-configuration only, no component scan. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
