package dev.limiter.outgoing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;

/**
 * An upstream on a free loopback port that answers every call as told, {@code "200"} until then, or for
 * instance {@code "429 Retry-After: 30"} (a status and at most one header field), with a small JSON body,
 * and records the path of every call it got.
 */
final class ScriptedUpstream implements AutoCloseable {

    private final HttpServer server;

    private final AtomicReference<String> answer = new AtomicReference<>("200");

    private final List<String> paths = new CopyOnWriteArrayList<>();

    ScriptedUpstream() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the upstream", ex);
        }
        server.createContext("/", (exchange) -> {
            paths.add(exchange.getRequestURI().getPath());
            String[] parts = answer.get().split(" ", 2);
            if (parts.length > 1) {
                String[] field = parts[1].split(": ", 2);
                exchange.getResponseHeaders().add(field[0], field[1]);
            }
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(Integer.parseInt(parts[0]), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    /** Answers every call from now on with {@code answer}, such as {@code "429 Retry-After: 30"}. */
    void answer(String answer) {
        this.answer.set(answer);
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port>}, without a trailing slash. */
    String url() {
        return "http://127.0.0.1:" + port();
    }

    /** The paths of the calls that reached the upstream, in order. */
    List<String> paths() {
        return List.copyOf(paths);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
