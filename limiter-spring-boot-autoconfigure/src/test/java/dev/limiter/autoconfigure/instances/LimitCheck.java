package dev.limiter.autoconfigure.instances;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one limit promises about the calls it admitted for one key, checked from the outside: from the
 * admissions alone, each known only to have been decided somewhere between its {@code before} and
 * {@code after} (docs/algorithms.md gives each algorithm's rule). A check counts only admissions that
 * certainly fall into the span it bounds, and bounds the span by what the algorithm admits over it, so
 * clock and recording jitter can hide an excess but never invent one: a reported excess is real.
 */
final class LimitCheck {

    private enum Shape {
        ALIGNED_SPANS, SPAN, BUCKET
    }

    private final Shape shape;

    private final long limit;

    private final long windowMicros;

    /** Sub-window length (aligned spans) in microseconds; unused otherwise. */
    private final long stepMicros;

    /** Sub-windows per span (aligned spans); unused otherwise. */
    private final long steps;

    private final long burst;

    private final String description;

    private LimitCheck(Shape shape, long limit, long windowMicros, long stepMicros, long steps, long burst, String description) {
        if (limit < 1 || windowMicros < 1 || burst < 0) {
            throw new IllegalArgumentException(description);
        }
        this.shape = shape;
        this.limit = limit;
        this.windowMicros = windowMicros;
        this.stepMicros = stepMicros;
        this.steps = steps;
        this.burst = burst;
        this.description = description;
    }

    /**
     * Fixed window: the decisions made within one epoch-aligned window {@code [k·W, (k+1)·W)} take at most
     * {@code L} permits. Counted: the admissions whose whole {@code [before, after]} lies in that window.
     */
    static LimitCheck fixedWindow(long limit, long windowMicros) {
        return new LimitCheck(Shape.ALIGNED_SPANS, limit, windowMicros, windowMicros, 1, 0,
                "fixed-window " + limit + "/" + windowMicros + "us");
    }

    /**
     * Sliding window of {@code N} sub-windows of {@code S = W/N}, aligned to the epoch. Bound: the decisions
     * made within any {@code N} consecutive sub-windows {@code a … a+N−1} take at most {@code L} permits.
     * Why: take the last admission decided in them, in sub-window {@code j ≤ a+N−1}; its live sub-windows
     * are {@code j−N+1 … j ⊇ a … j}, and no count of those has left or shrunk (counts only leave once
     * {@code ≤ j−N}; nothing is refunded here), so it saw every earlier admission of the span and admitted
     * only because the sum stayed within {@code L}. (A clock going back would put permits into a newer
     * sub-window than their time; one machine clock does not go back.) This is the algorithm's exact
     * promise; "within one sub-window" of a sliding span is weaker and not what is checked. Counted: the
     * admissions whose whole {@code [before, after]} lies in {@code [a·S, (a+N)·S)}.
     */
    static LimitCheck slidingWindow(long limit, long windowMicros, long subWindows) {
        if (windowMicros % subWindows != 0) {
            throw new IllegalArgumentException(subWindows + " sub-windows do not divide " + windowMicros + "us");
        }
        return new LimitCheck(Shape.ALIGNED_SPANS, limit, windowMicros, windowMicros / subWindows, subWindows, 0,
                "sliding-window " + limit + "/" + windowMicros + "us in " + subWindows);
    }

    /**
     * Sliding log: the decisions made within any span shorter than {@code W} take at most {@code L} permits
     * (the last of them, at {@code s}, counted every entry after {@code s − W}). Counted: for each
     * admission's {@code before = x}, the admissions with {@code x ≤ before} and {@code after ≤ x + W − 1}.
     * Starting at an admission's {@code before} is enough: moving a span's start up to its first
     * admission's {@code before} loses none of them.
     */
    static LimitCheck slidingLog(long limit, long windowMicros) {
        return new LimitCheck(Shape.SPAN, limit, windowMicros, 0, 0, 0, "sliding-log " + limit + "/" + windowMicros + "us");
    }

    /**
     * Token bucket, leaky bucket and gcra (three views of one rule, {@code x = B − v = B − (τ − t)/T}): a
     * bucket of {@code B} refilled at {@code L/W} per microsecond, each admission taking one. The decisions
     * made within {@code [x, y]} take at most {@code ⌊B + L·(y − x)/W⌋}: the bucket held at most {@code B}
     * before the first and gained at most the refill since. (For gcra {@code T = W/L} and admission needs
     * {@code τ' − t ≤ B·T}: the same {@code B}.) Counted: for each admission's {@code before = x} and each
     * {@code after = y}, the admissions with {@code x ≤ before} and {@code after ≤ y}.
     */
    static LimitCheck bucket(long limit, long windowMicros, long burst) {
        return new LimitCheck(Shape.BUCKET, limit, windowMicros, 0, 0, burst,
                "bucket " + limit + "/" + windowMicros + "us burst " + burst);
    }

    /** The largest excess of one key's admissions over this limit, or a zero excess when the limit held. */
    Excess worst(List<Admission> admissions) {
        if (admissions.isEmpty()) {
            return Excess.none(this.description);
        }
        return switch (this.shape) {
            case ALIGNED_SPANS -> alignedSpans(admissions);
            case SPAN -> span(admissions);
            case BUCKET -> bucket(admissions);
        };
    }

    private Excess alignedSpans(List<Admission> admissions) {
        int n = admissions.size();
        long[][] steps = new long[n][];
        for (int i = 0; i < n; i++) {
            Admission admission = admissions.get(i);
            steps[i] = new long[] { Math.floorDiv(admission.beforeMicros(), this.stepMicros),
                    Math.floorDiv(admission.afterMicros(), this.stepMicros) };
        }
        java.util.Arrays.sort(steps, Comparator.comparingLong((long[] step) -> step[0]));
        Excess worst = Excess.none(this.description);
        for (int i = 0; i < n; i++) {
            // A span that starts at no admission's first sub-window holds no more than the one starting at its first.
            if (i > 0 && steps[i][0] == steps[i - 1][0]) {
                continue;
            }
            long last = steps[i][0] + this.steps - 1;
            long count = 0;
            for (int k = i; k < n && steps[k][0] <= last; k++) {
                if (steps[k][1] <= last) {
                    count++;
                }
            }
            worst = worst.orWorse(count, this.limit, steps[i][0] * this.stepMicros, (last + 1) * this.stepMicros,
                    this.description);
        }
        return worst;
    }

    private Excess span(List<Admission> admissions) {
        List<Admission> byBefore = sorted(admissions, Comparator.comparingLong(Admission::beforeMicros));
        int n = byBefore.size();
        Excess worst = Excess.none(this.description);
        for (int i = 0; i < n; i++) {
            long from = byBefore.get(i).beforeMicros();
            if (i > 0 && from == byBefore.get(i - 1).beforeMicros()) {
                continue;
            }
            long to = from + this.windowMicros - 1;
            long count = 0;
            for (int k = i; k < n && byBefore.get(k).beforeMicros() <= to; k++) {
                if (byBefore.get(k).afterMicros() <= to) {
                    count++;
                }
            }
            worst = worst.orWorse(count, this.limit, from, to + 1, this.description);
        }
        return worst;
    }

    private Excess bucket(List<Admission> admissions) {
        List<Admission> byAfter = sorted(admissions, Comparator.comparingLong(Admission::afterMicros));
        long[] starts = admissions.stream().mapToLong(Admission::beforeMicros).sorted().distinct().toArray();
        Excess worst = Excess.none(this.description);
        for (long from : starts) {
            long count = 0;
            for (Admission admission : byAfter) {
                if (admission.beforeMicros() < from) {
                    continue;
                }
                count++;
                long to = admission.afterMicros();
                // ⌊B + L·(to − from)/W⌋, exactly: B·W and L·(to − from) stay far below 2^63 for the limits tested.
                long bound = Math.floorDiv(Math.addExact(Math.multiplyExact(this.burst, this.windowMicros),
                        Math.multiplyExact(this.limit, to - from)), this.windowMicros);
                worst = worst.orWorse(count, bound, from, to + 1, this.description);
            }
        }
        return worst;
    }

    private static List<Admission> sorted(List<Admission> admissions, Comparator<Admission> order) {
        List<Admission> sorted = new ArrayList<>(admissions);
        sorted.sort(order);
        return sorted;
    }

    @Override
    public String toString() {
        return this.description;
    }

    /**
     * How far the admissions within one span went over what the limit allows there.
     *
     * @param admitted admissions counted within the span
     * @param allowed what the limit allows within it
     * @param fromMicros start of the span, inclusive
     * @param toMicros end of the span, exclusive
     * @param limit the limit, described
     */
    record Excess(long admitted, long allowed, long fromMicros, long toMicros, String limit) {

        static Excess none(String limit) {
            return new Excess(0, 0, 0, 0, limit);
        }

        /** Admissions beyond what was allowed; 0 when the limit held. */
        long over() {
            return Math.max(0, this.admitted - this.allowed);
        }

        Excess orWorse(long admitted, long allowed, long fromMicros, long toMicros, String limit) {
            return (admitted - allowed > this.admitted - this.allowed || this.admitted == 0 && this.allowed == 0)
                    ? new Excess(admitted, allowed, fromMicros, toMicros, limit) : this;
        }

        @Override
        public String toString() {
            return (over() > 0 ? "over by " + over() + ": " : "held: ") + this.admitted + " admitted where " + this.allowed
                    + " are allowed, " + this.limit + ", in [" + this.fromMicros + ", " + this.toMicros + ") us ("
                    + (this.toMicros - this.fromMicros) / 1000 + " ms)";
        }

    }

}
