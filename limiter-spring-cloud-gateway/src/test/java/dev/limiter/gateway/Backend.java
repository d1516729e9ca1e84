package dev.limiter.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/** A small HTTP backend on a free loopback port that answers every request 200 "ok" and counts what reached it. */
final class Backend implements AutoCloseable {

    private final HttpServer server;

    private final AtomicInteger served = new AtomicInteger();

    private Backend(HttpServer server) {
        this.server = server;
    }

    static Backend start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            Backend backend = new Backend(server);
            server.createContext("/", (exchange) -> {
                backend.served.incrementAndGet();
                byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.start();
            return backend;
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
