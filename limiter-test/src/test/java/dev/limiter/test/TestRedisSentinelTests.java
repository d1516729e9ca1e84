package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shared setup as tests see it, and private setups whose master dies. */
@RedisTest
class TestRedisSentinelTests {

    @AfterEach
    void clearSettings() {
        System.clearProperty(Settings.SENTINEL_NODES_PROPERTY);
        System.clearProperty(Settings.SENTINEL_MASTER_PROPERTY);
        System.clearProperty(Settings.SERVER_PROPERTY);
    }

    @Test
    void threeSentinelsAgreeOnTheMasterWhichReplicatesAndAnswers() throws IOException {
        TestRedisSentinel setup = TestRedisSentinel.shared();
        assumeTrue(!setup.servers().isEmpty(), "the sentinels come from " + Settings.SENTINEL_NODES_ENV);

        assertThat(TestRedisSentinel.shared()).isSameAs(setup);
        assertThat(setup.masterName()).isEqualTo(TestRedisSentinel.MASTER_NAME);
        assertThat(setup.sentinels()).hasSize(3).doesNotHaveDuplicates().allMatch(s -> s.startsWith("127.0.0.1:"))
                .doesNotContain("127.0.0.1:6379");
        String master = setup.master();
        assertThat(master).startsWith("127.0.0.1:").isNotEqualTo("127.0.0.1:6379").isNotIn(setup.sentinels());
        for (String sentinel : setup.sentinels()) {
            assertThat(RedisCli.callNode(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", setup.masterName()))
                    .as(sentinel).isEqualTo(List.of("127.0.0.1", master.substring(10)));
            assertThat(RedisCli.callNode(sentinel, "SENTINEL", "CKQUORUM", setup.masterName()))
                    .as(sentinel).asString().startsWith("OK 3 usable Sentinels");
            Map<String, String> fields = fields(RedisCli.callNode(sentinel, "SENTINEL", "MASTER", setup.masterName()));
            assertThat(fields).containsEntry("flags", "master").containsEntry("num-slaves", "1")
                    .containsEntry("num-other-sentinels", "2").containsEntry("quorum", "2")
                    .containsEntry("down-after-milliseconds", "1000").containsEntry("failover-timeout", "5000");
        }
        List<?> role = (List<?>) RedisCli.callNode(master, "ROLE");
        assertThat(role.get(0)).isEqualTo("master");
        List<?> replica = (List<?>) ((List<?>) role.get(2)).get(0);
        String replicaAddress = replica.get(0) + ":" + replica.get(1);

        String key = "sentinel-test:" + UUID.randomUUID();
        // On one connection: WAIT waits only for this client's own writes.
        List<Object> replies = RedisCli.callNodeAll(master, List.of(new String[] { "SET", key, "v", "EX", "60" },
                new String[] { "WAIT", "1", "2000" }));
        assertThat(replies.get(0)).isEqualTo("OK");
        assertThat(replies.get(1)).isEqualTo(1L);
        assertThat(RedisCli.callNode(replicaAddress, "GET", key)).isEqualTo("v");
        assertThatThrownBy(() -> RedisCli.callNode(replicaAddress, "SET", key, "w")).hasMessageContaining("READONLY");
    }

    @Test
    void sharedSurvivesCloseAndItsMasterCannotBeKilled() {
        TestRedisSentinel setup = TestRedisSentinel.shared();
        String master = setup.master();

        setup.close();

        assertThatThrownBy(setup::killMaster).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("TestRedisSentinel.start()");
        assertThatThrownBy(() -> setup.awaitFailover(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(setup.master()).isEqualTo(master);
        assertThat(RedisCli.pings("127.0.0.1", port(master))).isTrue();
    }

    @Test
    void killedMasterIsReplacedByTheReplicaAndCloseLeavesNothingBehind() throws IOException {
        assumeNoConfiguredSentinels();
        TestRedisSentinel setup = TestRedisSentinel.start();
        List<RedisServerProcess> servers = setup.servers();
        List<Long> pids = servers.stream().map(RedisServerProcess::pid).toList();
        List<Path> dirs = servers.stream().map(RedisServerProcess::dir).toList();
        assertThat(servers).hasSize(5);
        assertThat(dirs).allMatch(Files::isDirectory).doesNotHaveDuplicates();
        try {
            String master = setup.master();
            String replica = servers.get(1).host() + ":" + servers.get(1).port();
            // On one connection: WAIT waits only for this client's own writes.
            List<Object> replies = RedisCli.callNodeAll(master, List.of(new String[] { "SET", "counter", "7" },
                    new String[] { "WAIT", "1", "2000" }));
            assertThat(replies.get(0)).isEqualTo("OK");
            assertThat(replies.get(1)).isEqualTo(1L);

            long began = System.nanoTime();
            setup.killMaster();
            assertThatThrownBy(setup::killMaster).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("awaitFailover");
            String promoted = setup.awaitFailover(Duration.ofSeconds(20));
            long failoverMillis = (System.nanoTime() - began) / 1_000_000;

            assertThat(failoverMillis).as("millis from kill to a new writable master").isLessThan(15_000);
            assertThat(promoted).isEqualTo(replica).isEqualTo(setup.master());
            assertThat(RedisCli.refuses("127.0.0.1", port(master))).isTrue();
            assertThat(((List<?>) RedisCli.callNode(promoted, "ROLE")).get(0)).isEqualTo("master");
            assertThat(RedisCli.callNode(promoted, "INCR", "counter")).isEqualTo(8L);
            for (String sentinel : setup.sentinels()) {
                assertThat(RedisCli.callNode(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", setup.masterName()))
                        .as(sentinel).isEqualTo(List.of("127.0.0.1", promoted.substring(10)));
            }
        } finally {
            setup.close();
        }

        for (int i = 0; i < pids.size(); i++) {
            long pid = pids.get(i);
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid %d", pid).isFalse();
            assertThat(dirs.get(i)).doesNotExist();
            assertThat(RedisCli.refuses("127.0.0.1", servers.get(i).port())).isTrue();
        }
        setup.close(); // idempotent
        assertThatThrownBy(setup::master).isInstanceOf(IllegalStateException.class).hasMessageContaining("close()");
    }

    @Test
    void configuredSentinelsAreUsedAndNeverKilled() {
        TestRedisSentinel underlying = TestRedisSentinel.shared();
        System.setProperty(Settings.SENTINEL_NODES_PROPERTY, " " + underlying.sentinels().get(2) + ", ");
        System.setProperty(Settings.SENTINEL_MASTER_PROPERTY, underlying.masterName());

        TestRedisSentinel setup = TestRedisSentinel.start();

        assertThat(setup.servers()).isEmpty();
        assertThat(setup.sentinels()).containsExactly(underlying.sentinels().get(2));
        assertThat(setup.masterName()).isEqualTo(underlying.masterName());
        String master = setup.master();
        assertThat(master).isEqualTo(underlying.master());
        assertThatThrownBy(setup::killMaster).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(Settings.SENTINEL_NODES_ENV);
        assertThatThrownBy(() -> setup.awaitFailover(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(Settings.SENTINEL_NODES_ENV);

        setup.close();

        assertThat(underlying.master()).isEqualTo(master);
        assertThat(RedisCli.pings("127.0.0.1", port(master))).isTrue();
    }

    @Test
    void incompleteOrWrongConfigurationIsExplained() {
        System.setProperty(Settings.SENTINEL_NODES_PROPERTY, "127.0.0.1:26379");

        assertThatThrownBy(TestRedisSentinel::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Set both " + Settings.SENTINEL_NODES_ENV)
                .hasMessageContaining(Settings.SENTINEL_MASTER_ENV);

        System.setProperty(Settings.SENTINEL_NODES_PROPERTY, "127.0.0.1:1");
        System.setProperty(Settings.SENTINEL_MASTER_PROPERTY, "nobody");

        assertThatThrownBy(TestRedisSentinel::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Settings.SENTINEL_NODES_ENV + "=127.0.0.1:1")
                .hasMessageContaining("are not usable");

        System.setProperty(Settings.SENTINEL_NODES_PROPERTY, "localhost");

        assertThatThrownBy(TestRedisSentinel::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'localhost'");
    }

    @Test
    void missingRedisServerIsExplained() {
        assumeNoConfiguredSentinels();
        System.setProperty(Settings.SERVER_PROPERTY, "/nonexistent/redis-server");

        assertThatThrownBy(TestRedisSentinel::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/nonexistent/redis-server is not an executable file")
                .hasMessageContaining("apt-get install redis-server")
                .hasMessageContaining(Settings.SENTINEL_NODES_ENV + "=host:port")
                .hasMessageContaining(Settings.SENTINEL_MASTER_ENV);
    }

    private static Map<String, String> fields(Object reply) {
        List<?> list = (List<?>) reply;
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < list.size(); i += 2) {
            fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return fields;
    }

    private static int port(String hostPort) {
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    static void assumeNoConfiguredSentinels() {
        String configured = System.getenv(Settings.SENTINEL_NODES_ENV);
        assumeTrue(configured == null || configured.isBlank(),
                Settings.SENTINEL_NODES_ENV + " is set, so tests cannot start their own sentinels");
    }
}
