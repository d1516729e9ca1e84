package dev.limiter.test;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Reads the settings that choose where a test Redis comes from (system property first, then environment). */
final class Settings {

    static final String DOCKER_IMAGE = "redis:7";
    static final String URL_ENV = "LIMITER_TEST_REDIS_URL";
    static final String URL_PROPERTY = "limiter.test.redis.url";
    static final String DOCKER_ENV = "LIMITER_TEST_REDIS_DOCKER";
    static final String DOCKER_PROPERTY = "limiter.test.redis.docker";
    static final String SERVER_ENV = "LIMITER_TEST_REDIS_SERVER";
    static final String SERVER_PROPERTY = "limiter.test.redis.server";
    static final String CLI_ENV = "LIMITER_TEST_REDIS_CLI";
    static final String CLI_PROPERTY = "limiter.test.redis.cli";
    static final String CLUSTER_NODES_ENV = "LIMITER_TEST_REDIS_CLUSTER_NODES";
    static final String CLUSTER_NODES_PROPERTY = "limiter.test.redis.cluster.nodes";
    static final String SENTINEL_NODES_ENV = "LIMITER_TEST_REDIS_SENTINEL_NODES";
    static final String SENTINEL_NODES_PROPERTY = "limiter.test.redis.sentinel.nodes";
    static final String SENTINEL_MASTER_ENV = "LIMITER_TEST_REDIS_SENTINEL_MASTER";
    static final String SENTINEL_MASTER_PROPERTY = "limiter.test.redis.sentinel.master";

    /** Whether to try Docker: never, always (ask Testcontainers), or only when a Docker endpoint looks present. */
    enum DockerMode { OFF, ON, AUTO }

    private Settings() {
    }

    static String url() {
        return get(URL_PROPERTY, URL_ENV);
    }

    static String serverExecutable() {
        return get(SERVER_PROPERTY, SERVER_ENV);
    }

    static String cliExecutable() {
        return get(CLI_PROPERTY, CLI_ENV);
    }

    static String clusterNodes() {
        return get(CLUSTER_NODES_PROPERTY, CLUSTER_NODES_ENV);
    }

    static String sentinelNodes() {
        return get(SENTINEL_NODES_PROPERTY, SENTINEL_NODES_ENV);
    }

    static String sentinelMaster() {
        return get(SENTINEL_MASTER_PROPERTY, SENTINEL_MASTER_ENV);
    }

    static DockerMode dockerMode() {
        String value = get(DOCKER_PROPERTY, DOCKER_ENV);
        if (value == null || value.equalsIgnoreCase("auto")) {
            return DockerMode.AUTO;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "false", "no", "off", "0" -> DockerMode.OFF;
            case "true", "yes", "on", "1" -> DockerMode.ON;
            default -> throw new IllegalArgumentException(
                    DOCKER_ENV + " must be true, false or auto, but is '" + value + "'");
        };
    }

    /**
     * Whether some Docker endpoint plausibly exists, judged from files and variables only. Asking
     * Testcontainers when there is none costs little time but logs an ERROR on every JVM, so the
     * common "no Docker at all" case is decided here, quietly.
     */
    static boolean dockerEndpointLikely() {
        if (get("docker.host", "DOCKER_HOST") != null
                || System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            return true; // named pipes and explicit hosts: let Testcontainers decide
        }
        Path home = Path.of(System.getProperty("user.home", "."));
        if (Files.exists(Path.of("/var/run/docker.sock"))
                || Files.exists(home.resolve(".docker/run/docker.sock"))
                || Files.exists(home.resolve(".docker/desktop/docker.sock"))
                || Files.exists(home.resolve(".testcontainers.properties"))
                || usesDockerContext(home.resolve(".docker/config.json"))) {
            return true;
        }
        String runtimeDir = System.getenv("XDG_RUNTIME_DIR");
        if (runtimeDir != null && Files.exists(Path.of(runtimeDir, "docker.sock"))) {
            return true;
        }
        Path runUser = Path.of("/run/user");
        if (Files.isDirectory(runUser)) {
            try (DirectoryStream<Path> users = Files.newDirectoryStream(runUser)) {
                for (Path user : users) {
                    if (Files.exists(user.resolve("docker.sock"))) {
                        return true;
                    }
                }
            } catch (IOException | SecurityException e) {
                return false;
            }
        }
        return false;
    }

    private static boolean usesDockerContext(Path config) {
        try {
            return Files.isRegularFile(config) && Files.readString(config).contains("\"currentContext\"");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String get(String property, String env) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(env);
        }
        return value == null || value.isBlank() ? null : value.trim();
    }
}
