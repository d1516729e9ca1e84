package dev.limiter.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/** Just enough of the Redis protocol over a plain socket to tell whether a server is up and whose it is. */
final class Resp {

    /** An error reply ({@code -ERR ...}). */
    record ErrorReply(String message) {
    }

    /**
     * How to reach a server: over TLS when {@code tls} is not null, and as {@code username} (AUTH
     * before the first command) when it is not null.
     */
    record Access(SSLSocketFactory tls, String username, String password) {

        /** Plain TCP, no AUTH: the servers started here by default. */
        static final Access PLAIN = new Access(null, null, null);
    }

    private Resp() {
    }

    /** True when host:port answers an inline {@code PING} with {@code +PONG} within the timeout. */
    static boolean ping(String host, int port, int timeoutMillis) {
        return ping(Access.PLAIN, host, port, timeoutMillis);
    }

    /** True when host:port, reached as {@code access} says, answers {@code PING} with {@code +PONG} within the timeout. */
    static boolean ping(Access access, String host, int port, int timeoutMillis) {
        try (Socket socket = connect(access, host, port, timeoutMillis)) {
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return "PONG".equals(read(new BufferedInputStream(socket.getInputStream())));
        } catch (IOException e) {
            return false;
        }
    }

    /** Sends one command and returns the reply: String, Long, List, {@link ErrorReply} or null. */
    static Object call(String host, int port, int timeoutMillis, String... args) throws IOException {
        return call(Access.PLAIN, host, port, timeoutMillis, args);
    }

    /** {@link #call(String, int, int, String...)} on a server reached as {@code access} says. */
    static Object call(Access access, String host, int port, int timeoutMillis, String... args) throws IOException {
        try (Socket socket = connect(access, host, port, timeoutMillis)) {
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] data = arg.getBytes(StandardCharsets.UTF_8);
            bytes.writeBytes(("$" + data.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            bytes.writeBytes(data);
            bytes.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return bytes.toByteArray();
    }

    static Object read(InputStream in) throws IOException {
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply line");
        }
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case '-':
                return new ErrorReply(rest);
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
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
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
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b == -1) {
                throw new EOFException("connection closed");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    private static Socket connect(Access access, String host, int port, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            if (access.tls() != null) {
                SSLSocket tls = (SSLSocket) access.tls().createSocket(socket, host, port, true);
                socket = tls;
                tls.setSoTimeout(timeoutMillis);
                tls.startHandshake();
            }
            if (access.username() != null) {
                OutputStream out = socket.getOutputStream();
                out.write(encode("AUTH", access.username(), access.password()));
                out.flush();
                Object reply = read(socket.getInputStream()); // unbuffered: nothing is read past the reply
                if (!"OK".equals(reply)) {
                    throw new IOException("AUTH as " + access.username() + " answered " + reply);
                }
            }
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }
}
