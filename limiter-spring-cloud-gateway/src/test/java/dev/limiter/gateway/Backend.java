package dev.limiter.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A small HTTP backend on a free loopback port that answers every request 200 "ok" and counts what reached it.
 * Started at once ({@link #start()}), or for the tests of one class as an extension ({@link #perClass()}).
 */
final class Backend implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    private volatile HttpServer server;

    private final AtomicInteger served = new AtomicInteger();

    private Backend() {
    }

    static Backend start() {
        Backend backend = new Backend();
        backend.server = backend.serve();
        return backend;
    }

    /** A backend that a test class's {@code @RegisterExtension static} field starts before its tests and stops after them. */
    static Backend perClass() {
        return new Backend();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = serve();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    private HttpServer serve() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", (exchange) -> {
                served.incrementAndGet();
                byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.start();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the test backend", ex);
        }
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Requests that reached the backend. */
    int served() {
        return served.get();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
