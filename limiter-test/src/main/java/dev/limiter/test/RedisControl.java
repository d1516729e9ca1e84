package dev.limiter.test;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A test's own connection to the Redis it breaks, apart from the limiters' connections: plain RESP over
 * one socket, reconnected (and authenticated, while a password is set through it) when a command finds
 * it closed. It makes faults: {@code CLIENT KILL TYPE normal SKIPME yes} spares it, and a password set
 * through {@link #requirePassword} keeps it logged in. Only for administrative commands, which may be
 * sent twice.
 */
public final class RedisControl implements AutoCloseable {

    /** An error reply, such as {@code NOAUTH Authentication required.}. */
    public record Error(String message) {
    }

    private static final int TIMEOUT_MILLIS = 5_000;

    private final String host;

    private final int port;

    private String password;

    private Socket socket;

    private InputStream in;

    public RedisControl(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** A connection of the test's own to {@code redis}. */
    public static RedisControl of(TestRedis redis) {
        return new RedisControl(redis.host(), redis.port());
    }

    /**
     * Sends one command and returns its reply: String, Long, List, {@link Error} or null. A connection
     * found closed is opened again and the command sent once more.
     */
    public Object call(String... args) {
        try {
            try {
                return send(args);
            }
            catch (IOException ex) {
                disconnect();
                return send(args);
            }
        }
        catch (IOException ex) {
            disconnect();
            throw new UncheckedIOException("Redis on " + this.host + ":" + this.port + " did not answer " + String.join(" ", args), ex);
        }
    }

    /** {@link #call}, failing unless Redis answered without an error. */
    public Object ok(String... args) {
        Object reply = call(args);
        if (reply instanceof Error error) {
            throw new IllegalStateException(String.join(" ", args) + " answered " + error.message());
        }
        return reply;
    }

    /** Sets the password every client must give, this connection staying logged in ({@code ""} clears it). */
    public void requirePassword(String password) {
        ok("CONFIG", "SET", "requirepass", password);
        this.password = password.isEmpty() ? null : password;
    }

    /** A field of {@code INFO}, such as {@code used_memory} in section {@code memory}, or null. */
    public String info(String section, String field) {
        for (String line : String.valueOf(ok("INFO", section)).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    /** Forgets the connection, as after a restart of Redis; the next call opens a new one. */
    public void disconnect() {
        if (this.socket != null) {
            try {
                this.socket.close();
            }
            catch (IOException ex) {
                // Gone already.
            }
            this.socket = null;
        }
    }

    @Override
    public void close() {
        disconnect();
    }

    private Object send(String... args) throws IOException {
        if (this.socket == null) {
            Socket opened = new Socket();
            opened.connect(new InetSocketAddress(this.host, this.port), TIMEOUT_MILLIS);
            opened.setSoTimeout(TIMEOUT_MILLIS);
            this.socket = opened;
            this.in = new BufferedInputStream(opened.getInputStream());
            if (this.password != null) {
                write("AUTH", this.password);
                Object reply = read(this.in);
                if (!"OK".equals(reply)) {
                    throw new IOException("AUTH answered " + reply);
                }
            }
        }
        write(args);
        return read(this.in);
    }

    private void write(String... args) throws IOException {
        OutputStream out = this.socket.getOutputStream();
        out.write(Resp.encode(args));
        out.flush();
    }

    private static Object read(InputStream in) throws IOException {
        Object reply = Resp.read(in);
        return (reply instanceof Resp.ErrorReply error) ? new Error(error.message()) : reply;
    }
}
