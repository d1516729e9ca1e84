package dev.limiter.autoconfigure.instances;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A test's own connection to the Redis it breaks, apart from the limiters' connections: plain RESP over
 * one socket, reconnected (and authenticated, while a password is set through it) when a command finds
 * it closed. Only for administrative commands, which may be sent twice.
 */
final class RedisControl implements AutoCloseable {

    /** An error reply, such as {@code NOAUTH Authentication required.}. */
    record Error(String message) {
    }

    private static final int TIMEOUT_MILLIS = 5_000;

    private final String host;

    private final int port;

    private String password;

    private Socket socket;

    private InputStream in;

    RedisControl(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /**
     * Sends one command and returns its reply: String, Long, List, {@link Error} or null. A connection
     * found closed is opened again and the command sent once more.
     */
    Object call(String... args) {
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
    Object ok(String... args) {
        Object reply = call(args);
        if (reply instanceof Error error) {
            throw new IllegalStateException(String.join(" ", args) + " answered " + error.message());
        }
        return reply;
    }

    /** Sets the password every client must give, this connection staying logged in ({@code ""} clears it). */
    void requirePassword(String password) {
        ok("CONFIG", "SET", "requirepass", password);
        this.password = password.isEmpty() ? null : password;
    }

    /** A field of {@code INFO}, such as {@code used_memory} in section {@code memory}, or null. */
    String info(String section, String field) {
        for (String line : String.valueOf(ok("INFO", section)).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    /** Forgets the connection, as after a restart of Redis; the next call opens a new one. */
    void disconnect() {
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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] data = arg.getBytes(StandardCharsets.UTF_8);
            bytes.writeBytes(("$" + data.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            bytes.writeBytes(data);
            bytes.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        OutputStream out = this.socket.getOutputStream();
        out.write(bytes.toByteArray());
        out.flush();
    }

    private static Object read(InputStream in) throws IOException {
        String line = readLine(in);
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case '-':
                return new Error(rest);
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                if (data.length < length + 2) {
                    throw new EOFException();
                }
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(rest);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("not a RESP reply: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int previous = -1, b = in.read();; previous = b, b = in.read()) {
            if (b == -1) {
                throw new EOFException("connection closed");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                if (bytes.length < 2) {
                    throw new IOException("empty reply line");
                }
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.US_ASCII);
            }
            line.write(b);
        }
    }

}
