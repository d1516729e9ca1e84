package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What tests see of the shared cluster; none of these tests changes its topology. */
@RedisTest
class TestRedisClusterTests {

    private static final String SUM_TWO_KEYS =
            "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[2]);"
                    + " return redis.call('GET', KEYS[1]) + redis.call('GET', KEYS[2])";

    @AfterEach
    void clearSettings() {
        System.clearProperty(Settings.CLUSTER_NODES_PROPERTY);
        System.clearProperty(Settings.SERVER_PROPERTY);
        System.clearProperty(Settings.CLI_PROPERTY);
    }

    @Test
    void sixNodesFormOneClusterThatEveryNodeReportsOk() throws IOException {
        TestRedisCluster cluster = TestRedisCluster.shared();

        assertThat(TestRedisCluster.shared()).isSameAs(cluster);
        assertThat(cluster.nodes()).hasSize(6).doesNotHaveDuplicates().doesNotContain("127.0.0.1:6379");
        assertThat(cluster.masters()).hasSize(3).isSubsetOf(cluster.nodes());
        for (String node : cluster.nodes()) {
            String info = (String) RedisCli.callNode(node, "CLUSTER", "INFO");
            assertThat(info).as(node)
                    .contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_slots_ok:16384",
                            "cluster_known_nodes:6", "cluster_size:3");
        }
    }

    @Test
    void startedNodesAreLoopbackOnlyPersistNothingAndFailOverQuickly() throws IOException {
        TestRedisCluster cluster = TestRedisCluster.shared();
        assumeTrue(cluster.local() != null, "the cluster comes from " + Settings.CLUSTER_NODES_ENV);

        for (String node : cluster.nodes()) {
            assertThat(node).startsWith("127.0.0.1:");
            assertThat(RedisCli.callNode(node, "CONFIG", "GET", "bind")).isEqualTo(List.of("bind", "127.0.0.1"));
            assertThat(RedisCli.callNode(node, "CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(RedisCli.callNode(node, "CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
            assertThat(RedisCli.callNode(node, "CONFIG", "GET", "cluster-node-timeout"))
                    .isEqualTo(List.of("cluster-node-timeout", "1000"));
        }
    }

    @Test
    void masterForAgreesWithClusterKeyslotAndClusterSlots() throws IOException {
        TestRedisCluster cluster = TestRedisCluster.shared();
        String node = cluster.nodes().get(0);
        List<?> slots = (List<?>) RedisCli.callNode(node, "CLUSTER", "SLOTS");
        Random random = new Random(42);
        List<String> keys = new ArrayList<>(List.of("", "foo", "{", "}", "{}", "{}{a}", "a{b", "x{y}z{w}", "ключ{é}",
                "limiter:{orders:user-7}:tokens", "limiter:{orders:user-7}:ts"));
        for (int i = 0; i < 200; i++) {
            keys.add(Long.toString(random.nextLong(), 36) + (i % 3 == 0 ? "{" + random.nextInt(1000) + "}" : ""));
        }
        HashSet<String> mastersSeen = new HashSet<>();

        for (String key : keys) {
            long slot = (Long) RedisCli.callNode(node, "CLUSTER", "KEYSLOT", key);
            assertThat(TestRedisCluster.slot(key)).as("slot of '%s'", key).isEqualTo(slot);
            String master = cluster.masterFor(key);
            assertThat(master).as("master for '%s'", key).isEqualTo(ownerInClusterSlots(slots, slot));
            mastersSeen.add(master);
        }
        assertThat(mastersSeen).containsExactlyInAnyOrderElementsOf(cluster.masters());
    }

    @Test
    void keysWithOneHashTagShareTheirSlotAndMaster() throws IOException {
        TestRedisCluster cluster = TestRedisCluster.shared();
        String tag = "{orders:" + UUID.randomUUID() + "}";
        String node = cluster.nodes().get(0);

        assertThat(TestRedisCluster.slot("limiter:" + tag + ":tokens"))
                .isEqualTo(TestRedisCluster.slot("limiter:" + tag + ":timestamp"))
                .isEqualTo(TestRedisCluster.slot(tag))
                .isEqualTo(((Long) RedisCli.callNode(node, "CLUSTER", "KEYSLOT", "other" + tag)).intValue());
        assertThat(cluster.masterFor("a" + tag)).isEqualTo(cluster.masterFor("b" + tag));
    }

    @Test
    void scriptOnTwoKeysWithOneHashTagRunsOnTheOwningMaster() throws IOException {
        TestRedisCluster cluster = TestRedisCluster.shared();
        String tag = "{" + UUID.randomUUID() + "}";
        String owner = cluster.masterFor(tag);
        String elsewhere = cluster.masters().stream().filter(m -> !m.equals(owner)).findFirst().orElseThrow();

        Object sum = RedisCli.callNode(owner, "EVAL", SUM_TWO_KEYS, "2", "a" + tag, "b" + tag, "2", "3");

        assertThat(sum).isEqualTo(5L);
        assertThatThrownBy(() -> RedisCli.callNode(elsewhere, "EVAL", SUM_TWO_KEYS, "2", "a" + tag, "b" + tag, "2", "3"))
                .hasMessageContaining("MOVED " + TestRedisCluster.slot(tag) + " " + owner);
    }

    @Test
    void scriptOnKeysWithDifferentHashTagsIsRefusedAsCrossSlot() {
        TestRedisCluster cluster = TestRedisCluster.shared();
        String first = "a{" + UUID.randomUUID() + "}";
        String second = "b{" + UUID.randomUUID() + "}";
        assumeTrue(TestRedisCluster.slot(first) != TestRedisCluster.slot(second));

        assertThatThrownBy(() -> RedisCli.callNode(cluster.masterFor(first), "EVAL", SUM_TWO_KEYS, "2", first, second,
                "2", "3"))
                .hasMessageContaining("CROSSSLOT");
    }

    @Test
    void sharedSurvivesCloseAndItsNodesCannotBeKilled() {
        TestRedisCluster cluster = TestRedisCluster.shared();
        String master = cluster.masters().get(0);

        cluster.close();

        assertThatThrownBy(() -> cluster.killMaster(master)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("TestRedisCluster.start()");
        assertThatThrownBy(() -> cluster.restart(master)).isInstanceOf(UnsupportedOperationException.class);
        cluster.awaitHealthy(Duration.ofSeconds(1));
        assertThat(RedisCli.pings("127.0.0.1", Integer.parseInt(master.substring(master.lastIndexOf(':') + 1))))
                .isTrue();
    }

    @Test
    void configuredNodesAreUsedAndNeverStoppedNorKilled() {
        TestRedisCluster underlying = TestRedisCluster.shared();
        System.setProperty(Settings.CLUSTER_NODES_PROPERTY, " " + underlying.nodes().get(1) + ", ");

        TestRedisCluster cluster = TestRedisCluster.start();

        assertThat(cluster.local()).isNull();
        assertThat(cluster.nodes()).containsExactlyInAnyOrderElementsOf(underlying.nodes());
        assertThat(cluster.masters()).isEqualTo(underlying.masters());
        assertThat(cluster.masterFor("{x}")).isEqualTo(underlying.masterFor("{x}"));
        String master = cluster.masters().get(0);
        assertThatThrownBy(() -> cluster.killMaster(master)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(Settings.CLUSTER_NODES_ENV);
        assertThatThrownBy(() -> cluster.restart(master)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(Settings.CLUSTER_NODES_ENV);

        cluster.close();

        underlying.awaitHealthy(Duration.ofSeconds(1));
    }

    @Test
    void badConfiguredNodesAreExplained() {
        System.setProperty(Settings.CLUSTER_NODES_PROPERTY, "127.0.0.1:7000,localhost");

        assertThatThrownBy(TestRedisCluster::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Settings.CLUSTER_NODES_ENV + " must be comma-separated host:port")
                .hasMessageContaining("'localhost'");

        System.setProperty(Settings.CLUSTER_NODES_PROPERTY, "127.0.0.1:1");

        assertThatThrownBy(TestRedisCluster::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No node of " + Settings.CLUSTER_NODES_ENV + "=127.0.0.1:1 answers CLUSTER NODES");
    }

    @Test
    void missingRedisServerIsExplained() {
        assumeNoConfiguredNodes();
        System.setProperty(Settings.SERVER_PROPERTY, "/nonexistent/redis-server");

        assertThatThrownBy(TestRedisCluster::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/nonexistent/redis-server is not an executable file")
                .hasMessageContaining("apt-get install redis-server")
                .hasMessageContaining(Settings.CLUSTER_NODES_ENV + "=host:port");
    }

    @Test
    void missingRedisCliIsExplained() {
        assumeNoConfiguredNodes();
        assumeTrue(RedisServerProcess.findExecutable() != null, "redis-server is not installed");
        System.setProperty(Settings.CLI_PROPERTY, "/nonexistent/redis-cli");

        assertThatThrownBy(TestRedisCluster::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Settings.CLI_ENV + "=/nonexistent/redis-cli is not an executable file")
                .hasMessageContaining("apt-get install redis-server");
    }

    @Test
    void failedClusterCreationShowsRedisCliOutputAndLeavesNoNodeRunning(@TempDir Path dir) throws IOException {
        assumeNoConfiguredNodes();
        assumeTrue(RedisServerProcess.findExecutable() != null, "redis-server is not installed");
        assumeTrue(!System.getProperty("os.name").startsWith("Windows"));
        Path arguments = dir.resolve("arguments");
        Path fakeCli = dir.resolve("redis-cli");
        Files.writeString(fakeCli, "#!/bin/sh\necho \"$@\" > " + arguments + "\n"
                + "printf '\\033[31;1m[ERR] Node is not empty\\033[0m\\n'\nexit 1\n");
        Files.setPosixFilePermissions(fakeCli, PosixFilePermissions.fromString("rwx------"));
        System.setProperty(Settings.CLI_PROPERTY, fakeCli.toString());

        assertThatThrownBy(TestRedisCluster::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--cluster create")
                .hasMessageContaining("exited with code 1")
                .hasMessageContaining("    [ERR] Node is not empty")
                .hasMessageNotContaining("\u001B");
        List<String> nodes = Arrays.stream(Files.readString(arguments).split(" "))
                .filter(argument -> argument.startsWith("127.0.0.1:"))
                .toList();
        assertThat(nodes).hasSize(6)
                .allSatisfy(node -> assertThat(RedisCli.refuses("127.0.0.1", Integer.parseInt(node.substring(10))))
                        .as(node).isTrue());
    }

    /** The "host:port" of the master of the CLUSTER SLOTS entry covering the slot. */
    private static String ownerInClusterSlots(List<?> slots, long slot) {
        for (Object entry : slots) {
            List<?> range = (List<?>) entry;
            if ((Long) range.get(0) <= slot && slot <= (Long) range.get(1)) {
                List<?> master = (List<?>) range.get(2);
                return master.get(0) + ":" + master.get(1);
            }
        }
        throw new AssertionError("CLUSTER SLOTS has no entry for slot " + slot + ": " + slots);
    }

    static void assumeNoConfiguredNodes() {
        String configured = System.getenv(Settings.CLUSTER_NODES_ENV);
        assumeTrue(configured == null || configured.isBlank(),
                Settings.CLUSTER_NODES_ENV + " is set, so tests cannot start their own cluster");
    }
}
