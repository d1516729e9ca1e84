package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Several application instances, each a JVM of its own with many threads, share one limit through
 * Redis: together they admit exactly the limit, also when their clocks disagree by minutes.
 */
@RedisTest
@Timeout(300)
class ManyInstancesTests {

    static final int LIMIT = 500;

    private static final Pattern RESULT = Pattern.compile("admitted=(\\d+) clock=(\\d+)");

    final TestRedis redis = TestRedis.shared();

    @Test
    void threeInstancesAdmitExactlyTheLimitTogether() throws Exception {
        List<Result> results = runInstances(List.of("", "", ""));
        assertThat(results.stream().mapToInt(Result::admitted).sum()).isEqualTo(LIMIT);
    }

    @Test
    void instancesWhoseClocksDisagreeByMinutesStillAdmitExactlyTheLimit() throws Exception {
        Assumptions.assumeTrue(onPath("faketime"), "needs faketime (apt-get install faketime) to skew the instances' clocks");
        long before = System.currentTimeMillis();
        List<Result> results = runInstances(List.of("-7m", "+0", "+9m"));
        long after = System.currentTimeMillis();
        // The skew is real: each instance saw its own time.
        assertThat(results.get(0).clock()).isLessThan(before - TimeUnit.MINUTES.toMillis(6));
        assertThat(results.get(2).clock()).isGreaterThan(after + TimeUnit.MINUTES.toMillis(8));
        assertThat(results.stream().mapToInt(Result::admitted).sum()).isEqualTo(LIMIT);
    }

    record Result(int admitted, long clock) {
    }

    /** Starts one JVM per clock offset ("" for none), all at once, and collects what each admitted. */
    private List<Result> runInstances(List<String> clockOffsets) throws IOException, InterruptedException {
        String prefix = TestRedisSupport.uniquePrefix();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> processes = new ArrayList<>();
        for (String offset : clockOffsets) {
            List<String> command = new ArrayList<>();
            if (!offset.isEmpty()) {
                // Shifts every clock the JVM reads. (Faking only the wall clock, FAKETIME_DONT_FAKE_MONOTONIC,
                // makes its timed waits hang under load.)
                command.addAll(List.of("faketime", "-f", offset));
            }
            command.addAll(List.of(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), InstanceMain.class.getName(),
                    redis.host(), Integer.toString(redis.port()), prefix, "shared", "8", "200", Integer.toString(LIMIT)));
            processes.add(new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        List<Result> results = new ArrayList<>();
        try {
            awaitReadyThenGo(prefix, processes.size());
            for (Process process : processes) {
                assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("instance finished").isTrue();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(process.exitValue()).as(output).isZero();
                Matcher matcher = RESULT.matcher(output);
                assertThat(matcher.find()).as(output).isTrue();
                results.add(new Result(Integer.parseInt(matcher.group(1)), Long.parseLong(matcher.group(2))));
            }
        }
        finally {
            // No instance outlives the test, whatever happened.
            processes.forEach(Process::destroyForcibly);
        }
        // The instances really competed: more than one of them got permits.
        assertThat(results.stream().filter((result) -> result.admitted() > 0).count()).isGreaterThan(1);
        return results;
    }

    /** Waits (bounded) until every instance is ready, then lets them all start at once. */
    private static void awaitReadyThenGo(String prefix, int instances) throws InterruptedException {
        StringRedisTemplate template = TestRedisSupport.shared();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Integer.toString(instances).equals(template.opsForValue().get(prefix + ":ready"))) {
            assertThat(System.nanoTime()).as("all instances ready within 60 s").isLessThan(deadline);
            Thread.sleep(10);
        }
        template.expire(prefix + ":ready", Duration.ofMinutes(5));
        template.opsForValue().set(prefix + ":go", "1", Duration.ofMinutes(5));
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(dir, command).canExecute()) {
                return true;
            }
        }
        return false;
    }
}
