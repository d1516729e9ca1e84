package dev.limiter.autoconfigure.instances;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.limiter.DecisionSource;

/**
 * What one instance saw during one command, as it prints it on one line of standard output:
 * <pre>
 * instance-result command=round:gcra:k:100 admitted=17 rejected=83 errors=0 nonRedis=0 slowestMillis=41
 *     startMillis=... endMillis=... sources=REDIS:100 firstError=none
 * </pre>
 * or, when the command itself could not run, {@code instance-result command=... failure=<why>}.
 *
 * @param instance index of the instance among those {@link Instances} started
 * @param command the command, its words joined by ':'
 * @param admitted calls whose method ran
 * @param rejected calls rejected with {@code RateLimitExceededException}
 * @param errors calls that threw anything else
 * @param sources decisions by what made them ({@code DecisionSource}); Redis or else
 * @param slowestMillis the longest any one call took
 * @param startMillis wall-clock time the callers were let go
 * @param endMillis wall-clock time the last caller finished
 * @param firstError the first unexpected exception, or null
 * @param failure why the command could not run, or null
 */
record InstanceResult(int instance, String command, long admitted, long rejected, long errors, Map<String, Long> sources,
        long slowestMillis, long startMillis, long endMillis, String firstError, String failure) {

    static final String PREFIX = "instance-result ";

    private static final Pattern FIELD = Pattern.compile("(\\w+)=(\\S*)");

    /** Decisions not made by Redis: the failure policy, the local deny cache, memory. */
    long nonRedis() {
        return this.sources.entrySet()
            .stream()
            .filter((entry) -> !entry.getKey().equals(DecisionSource.REDIS.name()))
            .mapToLong(Map.Entry::getValue)
            .sum();
    }

    static String format(String command, long admitted, long rejected, long errors, long slowestMillis, long startMillis,
            long endMillis, Map<DecisionSource, Long> sources, String firstError) {
        long nonRedis = sources.entrySet()
            .stream()
            .filter((entry) -> entry.getKey() != DecisionSource.REDIS)
            .mapToLong(Map.Entry::getValue)
            .sum();
        String bySource = sources.isEmpty() ? "none" : sources.entrySet()
            .stream()
            .map((entry) -> entry.getKey().name() + ":" + entry.getValue())
            .collect(Collectors.joining(","));
        return PREFIX + "command=" + command + " admitted=" + admitted + " rejected=" + rejected + " errors=" + errors
                + " nonRedis=" + nonRedis + " slowestMillis=" + slowestMillis + " startMillis=" + startMillis
                + " endMillis=" + endMillis + " sources=" + bySource + " firstError="
                + ((firstError != null) ? oneLine(firstError) : "none");
    }

    static String failure(String command, Exception ex) {
        return PREFIX + "command=" + command + " failure=" + oneLine(ex.toString());
    }

    static InstanceResult parse(int instance, String line) {
        if (!line.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a result line: " + line);
        }
        String body = line.substring(PREFIX.length());
        int failureAt = body.indexOf(" failure=");
        if (failureAt >= 0) {
            return new InstanceResult(instance, value(body, "command"), 0, 0, 0, Map.of(), 0, 0, 0, null,
                    body.substring(failureAt + " failure=".length()));
        }
        int errorAt = body.indexOf(" firstError=");
        String firstError = body.substring(errorAt + " firstError=".length());
        Map<String, Long> sources = new LinkedHashMap<>();
        String bySource = value(body.substring(0, errorAt), "sources");
        if (!bySource.equals("none")) {
            for (String entry : bySource.split(",")) {
                int colon = entry.indexOf(':');
                sources.put(entry.substring(0, colon), Long.parseLong(entry.substring(colon + 1)));
            }
        }
        return new InstanceResult(instance, value(body, "command"), number(body, "admitted"), number(body, "rejected"),
                number(body, "errors"), sources, number(body, "slowestMillis"), number(body, "startMillis"),
                number(body, "endMillis"), firstError.equals("none") ? null : firstError, null);
    }

    @Override
    public String toString() {
        if (this.failure != null) {
            return "#" + this.instance + " " + this.command + " FAILED: " + this.failure;
        }
        return "#" + this.instance + " admitted=" + this.admitted + " rejected=" + this.rejected + " errors=" + this.errors
                + " nonRedis=" + nonRedis() + " sources=" + this.sources + " slowest=" + this.slowestMillis + "ms"
                + ((this.firstError != null) ? " firstError=" + this.firstError : "");
    }

    private static String value(String body, String name) {
        Matcher matcher = FIELD.matcher(body);
        while (matcher.find()) {
            if (matcher.group(1).equals(name)) {
                return matcher.group(2);
            }
        }
        throw new IllegalArgumentException("no " + name + " in " + body);
    }

    private static long number(String body, String name) {
        return Long.parseLong(value(body, name));
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ");
    }

}
