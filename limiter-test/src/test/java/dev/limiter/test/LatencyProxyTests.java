package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LatencyProxyTests {

    private ServerSocket echo;

    @BeforeEach
    void startEchoServer() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(() -> {
            while (true) {
                try {
                    Socket connection = echo.accept();
                    Thread copier = new Thread(() -> {
                        try (connection) {
                            connection.getInputStream().transferTo(connection.getOutputStream());
                        } catch (IOException e) {
                            // the client went away
                        }
                    });
                    copier.setDaemon(true);
                    copier.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void stopEchoServer() throws IOException {
        echo.close();
    }

    @Test
    void forwardsBothWaysWithoutDelayByDefault() throws IOException {
        try (LatencyProxy proxy = LatencyProxy.start("127.0.0.1", echo.getLocalPort());
                Socket client = connect(proxy)) {
            assertThat(proxy.port()).isNotEqualTo(echo.getLocalPort());
            assertThat(proxy.replyDelay()).isZero();
            send(client, "hello");
            assertThat(receive(client, 5)).isEqualTo("hello");
        }
    }

    @Test
    void delaysEveryReplyAndKeepsTheirOrder() throws IOException {
        try (LatencyProxy proxy = LatencyProxy.start("localhost", echo.getLocalPort()); Socket client = connect(proxy)) {
            proxy.delayReplies(Duration.ofMillis(300));
            StringBuilder sent = new StringBuilder();
            long start = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                String message = "<" + i + ">";
                send(client, message);
                sent.append(message);
            }
            String first = receive(client, 3);
            Duration firstAfter = Duration.ofNanos(System.nanoTime() - start);
            String rest = receive(client, sent.length() - 3);
            assertThat(first + rest).isEqualTo(sent.toString());
            assertThat(firstAfter).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            // The delay does not add up over many replies: each waits for itself, not for those before it.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

            proxy.delayReplies(Duration.ZERO);
            send(client, "again");
            assertThat(receive(client, 5)).isEqualTo("again");
        }
    }

    @Test
    void forwardsToThisMachineOnly() {
        // A documentation address (TEST-NET-1): nothing is sent, the proxy refuses before connecting.
        assertThatIllegalArgumentException().isThrownBy(() -> LatencyProxy.start("192.0.2.1", 6379))
            .withMessageContaining("this machine only");
    }

    @Test
    void closeEndsOpenConnections() throws IOException {
        Socket client;
        try (LatencyProxy proxy = LatencyProxy.start("127.0.0.1", echo.getLocalPort())) {
            client = connect(proxy);
            send(client, "x");
            assertThat(receive(client, 1)).isEqualTo("x");
        }
        try (client) {
            assertThat(readOrEnd(client.getInputStream())).isEqualTo(-1);
        }
    }

    private static Socket connect(LatencyProxy proxy) throws IOException {
        Socket socket = new Socket(proxy.host(), proxy.port());
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String receive(Socket socket, int length) throws IOException {
        return new String(socket.getInputStream().readNBytes(length), StandardCharsets.US_ASCII);
    }

    /** The next byte, or -1 at the end of the stream or when the connection was reset. */
    private static int readOrEnd(InputStream in) {
        try {
            return in.read();
        } catch (IOException e) {
            return -1;
        }
    }
}
