package dev.limiter.autoconfigure.instances;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.function.ToLongFunction;

/**
 * The results of one command on every instance, with their sums.
 *
 * @param results one per instance, in instance order
 */
record Round(List<InstanceResult> results) {

    long admitted() {
        return sum(InstanceResult::admitted);
    }

    long rejected() {
        return sum(InstanceResult::rejected);
    }

    long errors() {
        return sum(InstanceResult::errors);
    }

    long nonRedis() {
        return sum(InstanceResult::nonRedis);
    }

    /** The longest any one call took on any instance. */
    Duration slowest() {
        return Duration.ofMillis(this.results.stream().mapToLong(InstanceResult::slowestMillis).max().orElse(0));
    }

    /** From the first instance letting its callers go to the last one's last call. */
    Duration elapsed() {
        long start = this.results.stream().mapToLong(InstanceResult::startMillis).min().orElse(0);
        long end = this.results.stream().mapToLong(InstanceResult::endMillis).max().orElse(0);
        return Duration.ofMillis(end - start);
    }

    /**
     * Whether the round may have spanned the end of a fixed window of this length (windows are aligned to
     * the epoch), so that a fixed-window limiter rightly admitted up to twice its limit.
     */
    boolean mayCrossWindowBoundary(Duration window) {
        long start = this.results.stream().mapToLong(InstanceResult::startMillis).min().orElse(0);
        long end = this.results.stream().mapToLong(InstanceResult::endMillis).max().orElse(0);
        // A second of slack each side: Redis' clock decides, and it may differ from ours by a little.
        long millis = window.toMillis();
        return Math.floorDiv(start - 1_000, millis) != Math.floorDiv(end + 1_000, millis);
    }

    @Override
    public String toString() {
        return "admitted=" + admitted() + " rejected=" + rejected() + " errors=" + errors() + " nonRedis=" + nonRedis()
                + " slowest=" + slowest().toMillis() + "ms elapsed=" + elapsed().toMillis() + "ms "
                + this.results.stream().map(InstanceResult::toString).collect(Collectors.joining("; ", "[", "]"));
    }

    private long sum(ToLongFunction<InstanceResult> value) {
        return this.results.stream().mapToLong(value).sum();
    }

}
