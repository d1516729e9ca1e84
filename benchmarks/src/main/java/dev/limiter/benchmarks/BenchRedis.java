package dev.limiter.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.test.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis every benchmark of one run shares: the one {@link BenchmarkRun} started, named by the
 * system properties {@code bench.redis.host} and {@code bench.redis.port}; when a benchmark is run
 * on its own (JMH's own main, for profiling) a private {@code redis-server} started as the tests do.
 * Never the Redis on 6379.
 */
final class BenchRedis {

    private static BenchRedis instance;

    private final String host;

    private final int port;

    /** Only for INFO and CONFIG: never the connection being measured. */
    private final StatefulRedisConnection<String, String> admin;

    private BenchRedis(String host, int port) {
        this.host = host;
        this.port = port;
        this.admin = RedisClient.create(RedisURI.create(host, port)).connect();
    }

    static synchronized BenchRedis get() {
        if (instance == null) {
            String port = System.getProperty("bench.redis.port");
            if (port != null) {
                instance = new BenchRedis(System.getProperty("bench.redis.host", "127.0.0.1"), Integer.parseInt(port));
            }
            else {
                TestRedis own = TestRedis.start();
                instance = new BenchRedis(own.host(), own.port());
            }
        }
        return instance;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** A template as an application builds it: Lettuce, one shared native connection, default settings. */
    StringRedisTemplate template() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        factory.afterPropertiesSet();
        factory.start();
        return new StringRedisTemplate(factory);
    }

    /** Calls so far per command ("evalsha", "get", ...) and the microseconds Redis spent on them. */
    CommandStats commandStats() {
        return CommandStats.parse(admin.sync().info("commandstats"));
    }

    /** A section of INFO, such as "server". */
    String info(String section) {
        return admin.sync().info(section);
    }

    /** CPU seconds Redis has used (user and system, all its threads), from INFO cpu. */
    double cpuSeconds() {
        double total = 0;
        for (String line : info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    void resetStats() {
        admin.sync().configResetstat();
    }

    String scriptLoad(String source) {
        return admin.sync().scriptLoad(source);
    }

    void flushAll() {
        admin.sync().flushall();
    }

    /**
     * The commands named {@code name} (such as {@code EVALSHA}) that Redis ran while {@code action} ran,
     * each as its words, from the slow log with every command logged for that time.
     */
    List<List<String>> commandsOf(Runnable action, String name) {
        RedisCommands<String, String> redis = admin.sync();
        String threshold = redis.configGet(SLOWLOG_THRESHOLD).get(SLOWLOG_THRESHOLD);
        redis.configSet(SLOWLOG_THRESHOLD, "0");
        redis.slowlogReset();
        List<Object> log;
        try {
            action.run();
            log = redis.slowlogGet(SLOWLOG_ENTRIES);
        }
        finally {
            redis.configSet(SLOWLOG_THRESHOLD, threshold);
        }
        List<List<String>> commands = new ArrayList<>();
        // Newest first: each entry is id, time, duration, then the command's words.
        for (int i = log.size() - 1; i >= 0; i--) {
            List<?> words = (List<?>) ((List<?>) log.get(i)).get(3);
            if (String.valueOf(words.get(0)).equalsIgnoreCase(name)) {
                List<String> command = new ArrayList<>();
                for (Object word : words) {
                    String text = String.valueOf(word);
                    // Redis shortens words beyond 128 bytes and commands beyond 32 words in its log.
                    if (text.matches("(?s).*\\.\\.\\. \\(\\d+ more (bytes|arguments)\\)")) {
                        throw new IllegalStateException("The slow log shortened " + words);
                    }
                    command.add(text);
                }
                commands.add(List.copyOf(command));
            }
        }
        return commands;
    }

    private static final String SLOWLOG_THRESHOLD = "slowlog-log-slower-than";

    /** More entries than one decision's commands. */
    private static final int SLOWLOG_ENTRIES = 128;

    /** Counters of INFO commandstats. */
    record CommandStats(Map<String, long[]> byCommand) {

        static CommandStats parse(String info) {
            Map<String, long[]> stats = new HashMap<>();
            for (String line : info.split("\r?\n")) {
                if (!line.startsWith("cmdstat_")) {
                    continue;
                }
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                long calls = 0;
                long usec = 0;
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    String[] pair = field.split("=");
                    if (pair[0].equals("calls")) {
                        calls = Long.parseLong(pair[1]);
                    }
                    else if (pair[0].equals("usec")) {
                        usec = Long.parseLong(pair[1]);
                    }
                }
                stats.put(command, new long[] { calls, usec });
            }
            return new CommandStats(stats);
        }

        long calls(String command) {
            return byCommand.getOrDefault(command, new long[2])[0];
        }

        long usec(String command) {
            return byCommand.getOrDefault(command, new long[2])[1];
        }

        /** Scripts run (EVALSHA and EVAL), whatever they call inside: commandstats counts those calls too. */
        long scriptCalls() {
            return calls("evalsha") + calls("eval");
        }

        long scriptUsec() {
            return usec("evalsha") + usec("eval");
        }
    }
}
