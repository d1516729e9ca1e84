package dev.limiter.test;

import static dev.limiter.test.TestRedisClusterTests.assumeNoConfiguredNodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Private clusters whose nodes die and come back; each test starts its own. */
@RedisTest
class ClusterFailoverTests {

    @BeforeEach
    void needsOwnCluster() {
        assumeNoConfiguredNodes();
    }

    @Test
    void killedMasterIsReplacedByItsReplicaWhichKeepsTheData() throws IOException {
        try (TestRedisCluster cluster = TestRedisCluster.start()) {
            String key = "{failover}:counter";
            String master = cluster.masterFor(key);
            String replica = replicaOf(master);
            // On one connection: WAIT waits only for this client's own writes.
            List<Object> replies = RedisCli.callNodeAll(master, List.of(new String[] { "SET", key, "7" },
                    new String[] { "WAIT", "1", "2000" }));
            assertThat(replies.get(0)).isEqualTo("OK");
            assertThat(replies.get(1)).isEqualTo(1L); // the replica has it

            long began = System.nanoTime();
            cluster.killMaster(master);
            cluster.awaitHealthy(Duration.ofSeconds(15));
            long failoverMillis = (System.nanoTime() - began) / 1_000_000;

            assertThat(failoverMillis).as("millis from kill to healthy").isLessThan(10_000);
            assertThat(RedisCli.refuses("127.0.0.1", port(master))).isTrue();
            assertThat(cluster.masterFor(key)).isEqualTo(replica);
            assertThat(cluster.masters()).hasSize(3).contains(replica).doesNotContain(master);
            assertThat(cluster.nodes()).contains(master); // still a member, if a dead one
            assertThat(((List<?>) RedisCli.callNode(replica, "ROLE")).get(0)).isEqualTo("master");
            assertThat(RedisCli.callNode(replica, "INCR", key)).isEqualTo(8L);
        }
    }

    @Test
    void restartedMasterRejoinsAsReplicaOfItsSuccessor() throws IOException {
        try (TestRedisCluster cluster = TestRedisCluster.start()) {
            String master = cluster.masters().get(1);
            String replica = replicaOf(master);
            cluster.killMaster(master);
            cluster.awaitHealthy(Duration.ofSeconds(15));

            cluster.restart(master);
            cluster.awaitHealthy(Duration.ofSeconds(10));

            List<?> role = (List<?>) RedisCli.callNode(master, "ROLE");
            assertThat(role.get(0)).isEqualTo("slave");
            assertThat(role.get(1) + ":" + role.get(2)).isEqualTo(replica);
            assertThat(role.get(3)).isEqualTo("connected");
            assertThat(cluster.masters()).contains(replica).doesNotContain(master);
            for (String node : cluster.nodes()) {
                assertThat((String) RedisCli.callNode(node, "CLUSTER", "INFO")).as(node)
                        .contains("cluster_state:ok", "cluster_known_nodes:6");
            }
            assertThatThrownBy(() -> cluster.restart(master)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is running");
        }
    }

    @Test
    void closeStopsEveryNodeAndDeletesItsDirectory() {
        TestRedisCluster cluster = TestRedisCluster.start();
        List<RedisServerProcess> servers = cluster.local().servers();
        List<Long> pids = servers.stream().map(RedisServerProcess::pid).toList();
        List<Path> dirs = servers.stream().map(RedisServerProcess::dir).toList();
        assertThat(pids).hasSize(6).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isPresent());
        assertThat(dirs).hasSize(6).allSatisfy(dir -> assertThat(dir).isDirectory().isNotEqualTo(dirs.get(0).getParent()));
        assertThat(dirs.get(0).resolve("nodes.conf")).exists();

        cluster.close();

        assertThat(pids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty());
        assertThat(dirs).allSatisfy(dir -> assertThat(Files.exists(dir)).as(dir.toString()).isFalse());
        assertThat(cluster.nodes()).allSatisfy(node -> assertThat(RedisCli.refuses("127.0.0.1", port(node))).isTrue());
        cluster.close(); // idempotent
        assertThatThrownBy(() -> cluster.killMaster(cluster.nodes().get(0))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void onlyRunningMastersCanBeKilledAndOnlyKilledNodesRestarted() throws IOException {
        try (TestRedisCluster cluster = TestRedisCluster.start()) {
            String master = cluster.masters().get(0);
            String replica = replicaOf(master);

            assertThatThrownBy(() -> cluster.killMaster(replica)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a master");
            assertThatThrownBy(() -> cluster.killMaster("127.0.0.1:1")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a node of this cluster");
            assertThatThrownBy(() -> cluster.restart(master)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is running");
            cluster.awaitHealthy(Duration.ofSeconds(1));
        }
    }

    /** The replica of a master, as the master itself lists it. */
    private static String replicaOf(String master) throws IOException {
        ClusterView view = ClusterView.parse((String) RedisCli.callNode(master, "CLUSTER", "NODES"));
        List<ClusterView.Node> replicas = view.replicasOf(view.myself().orElseThrow());
        assertThat(replicas).as("replicas of " + master).hasSize(1);
        return replicas.get(0).address();
    }

    private static int port(String node) {
        return Integer.parseInt(node.substring(node.lastIndexOf(':') + 1));
    }
}
