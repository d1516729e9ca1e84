package dev.limiter.sample.gateway.mvc;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * The backend behind the Server MVC sample gateway: a plain JDK HTTP server on the loopback interface that
 * answers every request 200 with the path it was asked for, and counts the requests that reached it (the
 * reactive sample has the same, so that each sample runs alone). Run it alone with
 * {@code java -cp sample-gateway-mvc-app/target/classes dev.limiter.sample.gateway.mvc.SampleBackend 9000}.
 */
public final class SampleBackend implements AutoCloseable {

    private final HttpServer server;

    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    private final AtomicInteger served = new AtomicInteger();

    private SampleBackend(HttpServer server) {
        this.server = server;
    }

    /** Starts a backend on {@code port} of the loopback interface, 0 for a free one. */
    public static SampleBackend start(int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        SampleBackend backend = new SampleBackend(server);
        server.createContext("/", (exchange) -> {
            backend.served.incrementAndGet();
            byte[] body = ("backend: " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.setExecutor(backend.executor);
        server.start();
        return backend;
    }

    /** The URI to route to, such as {@code http://127.0.0.1:9000}. */
    public String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Requests that reached this backend. */
    public int served() {
        return served.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    public static void main(String[] args) throws IOException {
        SampleBackend backend = start((args.length > 0) ? Integer.parseInt(args[0]) : 9000);
        System.out.println("Sample backend on " + backend.uri());
    }
}
