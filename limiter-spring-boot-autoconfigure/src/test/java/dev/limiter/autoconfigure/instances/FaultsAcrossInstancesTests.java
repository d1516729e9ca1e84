package dev.limiter.autoconfigure.instances;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.limiter.test.RedisControl;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 23's proof: three instances (JVMs), 48 callers, every algorithm, one hot key and many cold ones,
 * while {@link RedisFaults} drops the limiters' connections every 250-500 ms, pauses Redis, restarts it
 * with its data, makes it refuse authentication and fills its memory. Each instance records every
 * admission with the time just before and just after the call, and {@link AdmissionAudit} holds each key
 * to what its limits allow over every span ({@link LimitCheck} says why each bound is sound): under the
 * default {@code local} failure policy no key of any limiter goes over, and no caller sees an error.
 *
 * <p>The same run has a limiter whose failure policy is {@code allow}: it must go over, which shows that
 * the faults are outages the checker can see through.
 */
@RedisTest
@Timeout(300)
class FaultsAcrossInstancesTests {

    static final int INSTANCES = 3;

    /** How long the 48 callers call, the faults running from the first second to the last 4. */
    static final Duration SOAK = Duration.ofSeconds(36);

    /** Each caller's pause between two calls: enough calls to drive the hot keys far over their limits. */
    static final long PAUSE_MILLIS = 4;

    static final int HOT_PERCENT = 20;

    static final int KEYS = 300;

    static final String ALLOW = "token-bucket-allow";

    /** The limiters of the soak: small limits over short windows, so that every bound is tight. */
    static final List<Limited> LIMITERS = List.of(
            new Limited("fixed-window", "fixed-window", List.of(new Limit(10, 1_000, 0)), 0, null),
            new Limited("sliding-window", "sliding-window", List.of(new Limit(10, 1_000, 0)), 10, null),
            new Limited("sliding-log", "sliding-log", List.of(new Limit(10, 1_000, 0), new Limit(30, 5_000, 0)), 0, null),
            new Limited("token-bucket", "token-bucket", List.of(new Limit(10, 1_000, 5)), 0, null),
            new Limited("leaky-bucket", "leaky-bucket", List.of(new Limit(10, 1_000, 8)), 0, null),
            new Limited("gcra", "gcra", List.of(new Limit(10, 1_000, 3)), 0, null),
            new Limited(ALLOW, "token-bucket", List.of(new Limit(10, 1_000, 5)), 0, "allow"));

    @Test
    void underEveryFaultNoKeyOfAnyAlgorithmGoesOverItsLimitAndNoCallerSeesAnError() throws Exception {
        TestRedis.serverUnavailable().ifPresent(Assumptions::abort);
        Path records = Files.createDirectories(Path.of("target", "faults", UUID.randomUUID().toString())).toAbsolutePath();
        SoftAssertions soft = new SoftAssertions();
        try (TestRedis redis = TestRedis.server().persistent().start()) {
            List<String> properties = properties(redis);
            long seed = System.nanoTime();
            RedisFaults faults = new RedisFaults(redis, seed);
            Round soak;
            long started = System.nanoTime();
            try (Instances instances = Instances.start("faults", INSTANCES, properties)) {
                System.out.println("started " + INSTANCES + " instances in " + (System.nanoTime() - started) / 1_000_000 + " ms");
                System.out.println("warm-up: " + instances.warmUp(Duration.ofSeconds(2)));
                String limiters = String.join(",", LIMITERS.stream().map(Limited::name).toList());
                for (int i = 0; i < INSTANCES; i++) {
                    instances.send(i, "soak " + records.resolve("instance-" + i + ".txt") + " " + SOAK.toMillis() + " "
                            + PAUSE_MILLIS + " " + HOT_PERCENT + " " + KEYS + " " + limiters);
                }
                Thread.sleep(1_000);
                faults.run(SOAK.minusSeconds(5));
                soak = instances.await(SOAK.plus(Instances.COMMAND));
                System.out.println("soak: " + soak);
                System.out.println("faults (seed " + seed + "): " + faults.summary());
                instances.limiterWarnings().stream().limit(40).forEach(System.out::println);
            }
            Recorded recorded = Recorded.read(records, INSTANCES);
            Map<String, List<LimitCheck>> checks = new LinkedHashMap<>();
            LIMITERS.forEach((limited) -> checks.put(limited.name(), limited.checks()));
            List<AdmissionAudit.Finding> findings = AdmissionAudit.audit(checks, recorded.admissions());
            findings.forEach((finding) -> System.out.println("audit " + finding + "; hot key: "
                    + recorded.admitted(finding.limiter(), "hot") + " admitted, "
                    + recorded.rejected(finding.limiter(), "hot") + " rejected"));
            findings.stream().filter((finding) -> !finding.limiter().equals(ALLOW)).forEach((finding) -> recorded.explain(finding, faults.dropsAt()));

            soft.assertThat(soak.errors()).as("calls failing with anything but a rejection (%s)", soak).isZero();
            soft.assertThat(recorded.errors()).as("calls failing with anything but a rejection").isEmpty();
            for (AdmissionAudit.Finding finding : findings) {
                String limiter = finding.limiter();
                long hotAdmitted = recorded.admitted(limiter, "hot");
                long hotRejected = recorded.rejected(limiter, "hot");
                if (limiter.equals(ALLOW)) {
                    soft.assertThat(finding.keysOver())
                        .as("%s: keys over their limit with the allow policy, which must show (else the faults were no outages"
                                + " or the checker is blind): %s", limiter, finding)
                        .isPositive();
                    continue;
                }
                soft.assertThat(finding.keysOver()).as("%s: keys over their limit: %s", limiter, finding).isZero();
                soft.assertThat(hotRejected)
                    .as("%s: the hot key driven over its limit: rejections (%d admitted)", limiter, hotAdmitted)
                    .isGreaterThanOrEqualTo(hotAdmitted);
                soft.assertThat(finding.keys()).as("%s: keys with admissions", limiter).isGreaterThan(KEYS / 2);
            }
        }
        keepRecordsOnlyOnFailure(soft, records);
        soft.assertAll();
    }

    /** The sample's limit: a token bucket of 5 per 10 s. */
    static final Limited ORDERS = new Limited("orders", "token-bucket", List.of(new Limit(5, 10_000, 0)), 0, null);

    /** How long the one user of the outage case calls, one call every {@link #USER_PAUSE_MILLIS}. */
    static final Duration USER_CALLS = Duration.ofSeconds(6);

    static final long USER_PAUSE_MILLIS = 100;

    static final Duration REFUSING = Duration.ofSeconds(2);

    /**
     * One instance, so that the local policy's share is the whole limit (with three, a third of it: an
     * outage's extra permits would hide in the refill of the seconds the case takes). The user calls
     * every 100 ms for 6 s on a fresh key while Redis refuses the application (password set, clients
     * dropped) for the first 2 s, then answers again. Over those 6 s the bucket allows its 5 plus the
     * refill, 1 every 2 s: the checker's bound. And since the user drains the bucket, at least the limit
     * is admitted: Limiter went back to Redis after the outage.
     */
    @Test
    void anOutageOfTwoSecondsHandsOutTheLimitOnceNotTwice() throws Exception {
        TestRedis.serverUnavailable().ifPresent(Assumptions::abort);
        Path records = Files.createDirectories(Path.of("target", "faults", UUID.randomUUID().toString())).toAbsolutePath();
        SoftAssertions soft = new SoftAssertions();
        try (TestRedis redis = TestRedis.server().start(); RedisControl control = new RedisControl(redis.host(), redis.port())) {
            List<String> properties = properties(redis);
            properties.addAll(ORDERS.properties());
            InstanceResult calls;
            try (Instances instances = Instances.start("outage-case", 1, properties)) {
                System.out.println("warm-up: " + instances.warmUp(Duration.ofSeconds(1)));
                control.requirePassword("x");
                try {
                    control.ok("CLIENT", "KILL", "TYPE", "normal");
                    instances.send(0, "soak " + records.resolve("instance-0.txt") + " " + USER_CALLS.toMillis() + " "
                            + USER_PAUSE_MILLIS + " 100 1 " + ORDERS.name() + " 1");
                    Thread.sleep(REFUSING.toMillis());
                }
                finally {
                    control.requirePassword("");
                }
                calls = instances.await(0, USER_CALLS.plus(Instances.COMMAND));
                System.out.println("one user, outage case: " + calls);
                instances.limiterWarnings().forEach(System.out::println);
            }
            Recorded recorded = Recorded.read(records, 1);
            AdmissionAudit.Finding finding = AdmissionAudit.audit(Map.of(ORDERS.name(), ORDERS.checks()), recorded.admissions())
                .get(0);
            System.out.println("audit " + finding);
            soft.assertThat(finding.keysOver()).as("the user admitted beyond the bucket and its refill: %s", finding).isZero();
            soft.assertThat(recorded.admissions())
                .as("admitted: at least the limit, once Limiter is back on Redis (%s)", calls)
                .hasSizeGreaterThanOrEqualTo((int) ORDERS.limits().get(0).limit());
            soft.assertThat(calls.errors()).as("calls failing with anything but a rejection (%s)", calls).isZero();
            soft.assertThat(recorded.errors()).as("calls failing with anything but a rejection").isEmpty();
        }
        keepRecordsOnlyOnFailure(soft, records);
        soft.assertAll();
    }

    /** The records of a soak are tens of megabytes: kept under target/faults for a look after a failure only. */
    private static void keepRecordsOnlyOnFailure(SoftAssertions soft, Path records) throws IOException {
        if (soft.errorsCollected().isEmpty()) {
            try (var files = Files.list(records)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(records);
        }
        else {
            System.out.println("admissions recorded in " + records);
        }
    }

    /** Every limiter of {@link #LIMITERS}, the private Redis and a key prefix of this run's own. */
    static List<String> properties(TestRedis redis) {
        List<String> properties = new ArrayList<>();
        for (Limited limited : LIMITERS) {
            properties.addAll(limited.properties());
        }
        properties.add("spring.data.redis.url=" + redis.url());
        properties.add("limiter.key-prefix=" + ExactRounds.keyPrefix());
        return properties;
    }

    /** One limiter of the soak, its properties and the checks of its admissions. */
    record Limited(String name, String algorithm, List<Limit> limits, int subWindows, String onRedisFailure) {

        List<String> properties() {
            String prefix = "limiter.limiters." + this.name + ".";
            List<String> properties = new ArrayList<>();
            properties.add(prefix + "algorithm=" + this.algorithm);
            for (int i = 0; i < this.limits.size(); i++) {
                Limit limit = this.limits.get(i);
                String at = (this.limits.size() == 1) ? prefix : prefix + "limits[" + i + "].";
                properties.add(at + "limit=" + limit.limit());
                properties.add(at + "window=" + limit.windowMillis() + "ms");
                if (limit.burst() > 0) {
                    properties.add(at + "burst=" + limit.burst());
                }
            }
            if (this.subWindows > 0) {
                properties.add(prefix + "sub-windows=" + this.subWindows);
            }
            if (this.onRedisFailure != null) {
                properties.add(prefix + "on-redis-failure=" + this.onRedisFailure);
            }
            return properties;
        }

        List<LimitCheck> checks() {
            return this.limits.stream().map((limit) -> {
                long window = limit.windowMillis() * 1_000;
                return switch (this.algorithm) {
                    case "fixed-window" -> LimitCheck.fixedWindow(limit.limit(), window);
                    case "sliding-window" -> LimitCheck.slidingWindow(limit.limit(), window, this.subWindows);
                    case "sliding-log" -> LimitCheck.slidingLog(limit.limit(), window);
                    // The burst defaults to the limit.
                    default -> LimitCheck.bucket(limit.limit(), window, (limit.burst() > 0) ? limit.burst() : limit.limit());
                };
            }).toList();
        }

    }

    /** {@code limit} permits per {@code windowMillis}; {@code burst} for bucket algorithms, 0 for the default. */
    record Limit(long limit, long windowMillis, long burst) {
    }

    /** What the instances wrote of their soak: admissions, rejections by limiter and key, failed calls. */
    record Recorded(List<Admission> admissions, Map<String, Long> rejections, List<String> errors) {

        static Recorded read(Path directory, int instances) throws IOException {
            List<Admission> admissions = new ArrayList<>();
            Map<String, Long> rejections = new TreeMap<>();
            List<String> errors = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                for (String line : Files.readAllLines(directory.resolve("instance-" + i + ".txt"), StandardCharsets.UTF_8)) {
                    if (line.startsWith(Admission.TAG + " ")) {
                        Admission admission = Admission.parse(line);
                        admissions.add(new Admission(admission.limiter(), admission.key(), admission.beforeMicros(),
                                admission.afterMicros(), "#" + i + ":" + admission.source()));
                    }
                    else if (line.startsWith("R ")) {
                        String[] words = line.split(" ");
                        rejections.merge(words[1] + " " + words[2], Long.parseLong(words[3]), Long::sum);
                    }
                    else {
                        errors.add("#" + i + " " + line);
                    }
                }
            }
            return new Recorded(admissions, rejections, errors);
        }

        long admitted(String limiter, String key) {
            return this.admissions.stream().filter((a) -> a.limiter().equals(limiter) && a.key().equals(key)).count();
        }

        /**
         * Prints the admissions of the worst span of each key of {@code finding} that went over: who
         * admitted each (instance and decision source) and when, so that a failure says what let the
         * excess through.
         */
        void explain(AdmissionAudit.Finding finding, List<Long> dropsAt) {
            finding.over().forEach((key, excess) -> {
                System.out.println("explain " + finding.limiter() + " " + key + ": " + excess + "; connections dropped at "
                        + dropsAt.stream().filter((at) -> at >= excess.fromMicros() - 1_000_000 && at < excess.toMicros()).toList());
                this.admissions.stream()
                    .filter((a) -> a.limiter().equals(finding.limiter()) && a.key().equals(key))
                    .filter((a) -> a.afterMicros() >= excess.fromMicros() - 1_000_000 && a.beforeMicros() < excess.toMicros())
                    .sorted(java.util.Comparator.comparingLong(Admission::beforeMicros))
                    .forEach((a) -> System.out.println("  " + a.beforeMicros() + " +" + (a.afterMicros() - a.beforeMicros()) + "us "
                            + a.source() + ((a.beforeMicros() >= excess.fromMicros() && a.afterMicros() < excess.toMicros()) ? "" : " (outside)")));
            });
        }

        long rejected(String limiter, String key) {
            return this.rejections.getOrDefault(limiter + " " + key, 0L);
        }

    }

}
