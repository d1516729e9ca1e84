package dev.limiter.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a free port of 127.0.0.1 that forwards every connection to a server on this machine
 * and can hold back what the server answers, as a slow network or a busy server would: each chunk of
 * bytes from the server reaches the client {@link #delayReplies(Duration) the delay} after it arrived,
 * in order. Bytes from the client are forwarded at once.
 *
 * <pre>{@code
 * try (LatencyProxy proxy = LatencyProxy.start(redis.host(), redis.port())) {
 *     client.connect(proxy.host(), proxy.port());
 *     proxy.delayReplies(Duration.ofMillis(150));   // every reply from now on comes 150 ms late
 *     proxy.delayReplies(Duration.ZERO);            // and on time again
 * }
 * }</pre>
 */
public final class LatencyProxy implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private static final int BUFFER_SIZE = 16 * 1024;

    /** A chunk from the server with the time it may be passed on; an empty chunk marks the end of the stream. */
    private record Chunk(byte[] bytes, long dueNanos) {
    }

    private final InetSocketAddress target;

    private final ServerSocket listener;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile long delayNanos;

    private volatile boolean closed;

    private LatencyProxy(InetSocketAddress target, ServerSocket listener) {
        this.target = target;
        this.listener = listener;
    }

    /**
     * Starts a proxy to {@code host:port}, without delay.
     *
     * @param host the server's host; it must be this machine (a loopback address)
     * @param port the server's port
     * @return the running proxy, to be closed by the caller
     * @throws IllegalArgumentException if {@code host} is not a loopback address
     */
    public static LatencyProxy start(String host, int port) {
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host " + host, e);
        }
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException("LatencyProxy forwards to this machine only, not to " + host);
        }
        try {
            ServerSocket listener = new ServerSocket(0, 50, InetAddress.getByName(HOST));
            LatencyProxy proxy = new LatencyProxy(new InetSocketAddress(address, port), listener);
            daemon("latency-proxy-accept-" + listener.getLocalPort(), proxy::accept).start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + HOST, e);
        }
    }

    /**
     * The host clients connect to.
     *
     * @return {@code 127.0.0.1}
     */
    public String host() {
        return HOST;
    }

    /**
     * The port clients connect to.
     *
     * @return the proxy's own port, not the server's
     */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Delays what servers answer from now on, on open and new connections alike; bytes already held back
     * keep the delay they got.
     *
     * @param delay how long each chunk from the server is held back; zero for none
     */
    public void delayReplies(Duration delay) {
        if (Objects.requireNonNull(delay, "delay").isNegative()) {
            throw new IllegalArgumentException("the delay must not be negative but was " + delay);
        }
        delayNanos = delay.toNanos();
    }

    /**
     * The delay now applied to replies.
     *
     * @return the delay, zero when none
     */
    public Duration replyDelay() {
        return Duration.ofNanos(delayNanos);
    }

    /** Stops accepting and closes every connection, on both sides. Idempotent. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        sockets.forEach(LatencyProxy::closeQuietly);
        sockets.clear();
    }

    @Override
    public String toString() {
        return "LatencyProxy[" + HOST + ":" + port() + " -> " + target + ", delay " + replyDelay() + "]";
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket server = new Socket();
            try {
                server.connect(target, 5_000);
            } catch (IOException e) {
                closeQuietly(server);
                closeQuietly(client); // the client sees the server refuse, as without the proxy
                continue;
            }
            track(client);
            track(server);
            String name = "latency-proxy-" + client.getPort();
            BlockingQueue<Chunk> replies = new LinkedBlockingQueue<>();
            daemon(name + "-request", () -> forwardRequests(client, server)).start();
            daemon(name + "-reply-read", () -> readReplies(server, replies, client)).start();
            daemon(name + "-reply-write", () -> writeReplies(replies, client, server)).start();
        }
    }

    private void forwardRequests(Socket client, Socket server) {
        try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
            byte[] buffer = new byte[BUFFER_SIZE];
            for (int n; (n = in.read(buffer)) != -1;) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // One side went away: close both below.
        } finally {
            release(client, server);
        }
    }

    private void readReplies(Socket server, BlockingQueue<Chunk> replies, Socket client) {
        try (InputStream in = server.getInputStream()) {
            byte[] buffer = new byte[BUFFER_SIZE];
            for (int n; (n = in.read(buffer)) != -1;) {
                replies.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
            }
        } catch (IOException e) {
            // The server or the client went away.
        } finally {
            // The end of the stream is passed on in order, after the replies held back.
            replies.add(new Chunk(new byte[0], System.nanoTime() + delayNanos));
        }
    }

    private void writeReplies(BlockingQueue<Chunk> replies, Socket client, Socket server) {
        try (OutputStream out = client.getOutputStream()) {
            while (true) {
                Chunk chunk = replies.poll(1, TimeUnit.SECONDS);
                if (chunk == null) {
                    if (closed || client.isClosed()) {
                        return;
                    }
                    continue;
                }
                for (long wait; (wait = chunk.dueNanos() - System.nanoTime()) > 0;) {
                    LockSupport.parkNanos(wait);
                }
                if (chunk.bytes().length == 0) {
                    return;
                }
                out.write(chunk.bytes());
                out.flush();
            }
        } catch (IOException e) {
            // The client went away.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            release(client, server);
        }
    }

    private void release(Socket client, Socket server) {
        for (Socket socket : new Socket[] {client, server}) {
            closeQuietly(socket);
            sockets.remove(socket);
        }
    }

    private void track(Socket socket) {
        sockets.add(socket);
        if (closed) {
            closeQuietly(socket);
        }
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing anyway.
        }
    }
}
