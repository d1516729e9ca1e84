package dev.limiter.outgoing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongUnaryOperator;

import dev.limiter.LimiterClock;

import com.sun.net.httpserver.HttpServer;

/**
 * A third-party API on a free loopback port that enforces its own limit: fixed windows aligned to its clock, admitting {@code limitOf(window)} calls; a call over it gets 429 with
 * {@code Retry-After} counting to the next window, in whole seconds. Records every call.
 */
final class Upstream implements AutoCloseable {

    /** One call that reached the upstream: when, in which window, and its status. */
    record Arrival(long atMicros, long window, int status, long retryAfterSeconds) {
    }

    private static final long SECOND = 1_000_000L;

    private final HttpServer server;

    private final LimiterClock clock;

    private final long startMicros;

    private final LongUnaryOperator limitOf;

    private final ConcurrentHashMap<Long, AtomicInteger> counts = new ConcurrentHashMap<>();

    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();

    private Upstream(HttpServer server, LimiterClock clock, long startMicros, LongUnaryOperator limitOf) {
        this.server = server;
        this.clock = clock;
        this.startMicros = startMicros;
        this.limitOf = limitOf;
    }

    /**
     * @param startMicros the start of window 0, on a whole second
     * @param windowMicros the length of a window, whole seconds
     * @param limitOf the limit of each window, by its index
     */
    static Upstream start(LimiterClock clock, long startMicros, long windowMicros, LongUnaryOperator limitOf) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            Upstream upstream = new Upstream(server, clock, startMicros, limitOf);
            server.createContext("/", (exchange) -> {
                long now = clock.nowMicros();
                long window = Math.floorDiv(now - startMicros, windowMicros);
                int count = upstream.counts.computeIfAbsent(window, (w) -> new AtomicInteger()).incrementAndGet();
                if (count <= limitOf.applyAsLong(window)) {
                    upstream.arrivals.add(new Arrival(now, window, 200, 0));
                    exchange.sendResponseHeaders(200, -1);
                }
                else {
                    long retryAfter = Math.max(1, (startMicros + (window + 1) * windowMicros - now + SECOND - 1) / SECOND);
                    upstream.arrivals.add(new Arrival(now, window, 429, retryAfter));
                    exchange.getResponseHeaders().add("Retry-After", Long.toString(retryAfter));
                    exchange.sendResponseHeaders(429, -1);
                }
                exchange.close();
            });
            server.setExecutor(Executors.newFixedThreadPool(16));
            server.start();
            return upstream;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start the upstream", ex);
        }
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/orders";
    }

    List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    long served(long window) {
        return arrivals.stream().filter((a) -> a.window() == window && a.status() == 200).count();
    }

    long tooMany(long window) {
        return arrivals.stream().filter((a) -> a.window() == window && a.status() == 429).count();
    }

    @Override
    public void close() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }
}
