package dev.limiter.property;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Makes a failing scenario small: drops requests (halves, quarters, ... single ones), then makes
 * each remaining request simpler (no time step, one permit, the first key), for as long as some
 * change keeps it failing and the budget lasts.
 */
final class Shrinker {

    private static final int MAX_REPLAYS = 4_000;

    private static final long MAX_NANOS = 60_000_000_000L;

    /** Replays a candidate; present when it still fails, with its ops cut after the failing step. */
    private final Function<Scenario, Optional<Scenario>> failing;

    private final long deadline = System.nanoTime() + MAX_NANOS;

    private int replays;

    private Shrinker(Function<Scenario, Optional<Scenario>> failing) {
        this.failing = failing;
    }

    static Scenario shrink(Scenario scenario, Function<Scenario, Optional<Scenario>> failing) {
        return new Shrinker(failing).run(scenario);
    }

    private Scenario run(Scenario scenario) {
        Scenario best = scenario;
        boolean progress = true;
        while (progress && !exhausted()) {
            progress = false;
            for (int size = Math.max(1, best.ops().size() / 2); size >= 1 && !exhausted(); size /= 2) {
                int start = 0;
                while (start < best.ops().size() && !exhausted()) {
                    List<Op> ops = new ArrayList<>(best.ops());
                    ops.subList(start, Math.min(ops.size(), start + size)).clear();
                    Optional<Scenario> smaller = attempt(best.withOps(ops));
                    if (smaller.isPresent()) {
                        best = smaller.get();
                        progress = true;
                    }
                    else {
                        start += size;
                    }
                }
            }
            for (int i = 0; i < best.ops().size() && !exhausted(); i++) {
                for (Op simpler : simpler(best.ops().get(i), best.ops().get(0).key())) {
                    List<Op> ops = new ArrayList<>(best.ops());
                    ops.set(i, simpler);
                    Optional<Scenario> candidate = attempt(best.withOps(ops));
                    if (candidate.isPresent()) {
                        best = candidate.get();
                        progress = true;
                        break;
                    }
                }
            }
        }
        return best;
    }

    private Optional<Scenario> attempt(Scenario candidate) {
        if (candidate.ops().isEmpty()) {
            return Optional.empty();
        }
        replays++;
        return failing.apply(candidate);
    }

    private boolean exhausted() {
        return replays >= MAX_REPLAYS || System.nanoTime() > deadline;
    }

    /** Simpler versions of {@code op}, most radical first. */
    private static List<Op> simpler(Op op, String firstKey) {
        List<Op> candidates = new ArrayList<>();
        if (op.timing() != Op.Timing.STEP) {
            candidates.add(Op.step(0, op.key(), op.permits()));
        }
        if (op.micros() != 0) {
            candidates.add(op.with(0, op.key(), op.permits()));
            candidates.add(op.with(op.micros() / 2, op.key(), op.permits()));
            candidates.add(op.with(op.micros() - Long.signum(op.micros()), op.key(), op.permits()));
        }
        if (op.permits() > 1) {
            candidates.add(op.with(op.micros(), op.key(), 1));
            candidates.add(op.with(op.micros(), op.key(), op.permits() / 2));
            candidates.add(op.with(op.micros(), op.key(), op.permits() - 1));
        }
        if (!op.key().equals(firstKey)) {
            candidates.add(op.with(op.micros(), firstKey, op.permits()));
        }
        return candidates;
    }
}
