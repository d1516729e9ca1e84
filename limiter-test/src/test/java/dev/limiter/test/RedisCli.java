package dev.limiter.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A tiny Redis client for the tests: one command per connection, replies as String, Long, List or null. */
final class RedisCli {

    private RedisCli() {
    }

    static Object call(String host, int port, String... args) throws IOException {
        return callAll(host, port, List.<String[]>of(args)).get(0);
    }

    /**
     * Sends several commands on one connection and returns their replies. Needed where a command
     * concerns the connection's earlier ones, as WAIT does (it waits for this client's writes only).
     */
    static List<Object> callAll(String host, int port, List<String[]> commands) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1_000);
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            List<Object> replies = new ArrayList<>();
            for (String[] args : commands) {
                StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
                for (String arg : args) {
                    request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                            .append(arg).append("\r\n");
                }
                out.write(request.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                replies.add(reply(in));
            }
            return replies;
        }
    }

    static Object call(TestRedis redis, String... args) throws IOException {
        return call(redis.host(), redis.port(), args);
    }

    /** Sends the command to a cluster node given as "host:port". */
    static Object callNode(String node, String... args) throws IOException {
        return callNodeAll(node, List.<String[]>of(args)).get(0);
    }

    /** Sends several commands on one connection to a cluster node given as "host:port". */
    static List<Object> callNodeAll(String node, List<String[]> commands) throws IOException {
        int colon = node.lastIndexOf(':');
        return callAll(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)), commands);
    }

    /** True if the server answers PING; false on any connection or protocol failure. */
    static boolean pings(String host, int port) {
        try {
            return "PONG".equals(call(host, port, "PING"));
        } catch (IOException e) {
            return false;
        }
    }

    /** True if nothing accepts connections on host:port any more. */
    static boolean refuses(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1_000);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    static boolean pings(TestRedis redis) {
        return pings(redis.host(), redis.port());
    }

    // Values in these tests are ASCII, so counting chars as bytes is fine.
    private static Object reply(BufferedReader in) throws IOException {
        String line = in.readLine();
        if (line == null) {
            throw new IOException("connection closed");
        }
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case '-':
                throw new IOException("Redis error: " + rest);
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                char[] data = new char[length];
                int read = 0;
                while (read < length) {
                    int n = in.read(data, read, length - read);
                    if (n < 0) {
                        throw new IOException("connection closed");
                    }
                    read += n;
                }
                in.readLine();
                return new String(data);
            }
            case '*': {
                int count = Integer.parseInt(rest);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(reply(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply: " + line);
        }
    }
}
