package dev.limiter.autoconfigure.instances;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Counts what the instances together admitted per limiter and key, and holds every key's admissions to
 * each of its limiter's limits ({@link LimitCheck}).
 */
final class AdmissionAudit {

    private AdmissionAudit() {
    }

    /**
     * Audits {@code admissions} of the limiters in {@code checks}; an admission of a limiter not in
     * {@code checks} is an error of the test.
     *
     * @param checks each audited limiter's limits
     * @param admissions every admission of every instance, in any order
     * @return one finding per limiter of {@code checks}, in its order
     */
    static List<Finding> audit(Map<String, List<LimitCheck>> checks, Collection<Admission> admissions) {
        Map<String, Map<String, List<Admission>>> byLimiterAndKey = new LinkedHashMap<>();
        checks.keySet().forEach((limiter) -> byLimiterAndKey.put(limiter, new TreeMap<>()));
        for (Admission admission : admissions) {
            Map<String, List<Admission>> byKey = byLimiterAndKey.get(admission.limiter());
            if (byKey == null) {
                throw new IllegalArgumentException("no checks for limiter " + admission.limiter() + ": " + checks.keySet());
            }
            byKey.computeIfAbsent(admission.key(), (key) -> new ArrayList<>()).add(admission);
        }
        List<Finding> findings = new ArrayList<>();
        byLimiterAndKey.forEach((limiter, byKey) -> {
            Map<String, LimitCheck.Excess> over = new TreeMap<>();
            String worstKey = null;
            LimitCheck.Excess worst = null;
            long count = 0;
            for (Map.Entry<String, List<Admission>> entry : byKey.entrySet()) {
                count += entry.getValue().size();
                for (LimitCheck check : checks.get(limiter)) {
                    LimitCheck.Excess excess = check.worst(entry.getValue());
                    if (excess.over() > 0) {
                        over.merge(entry.getKey(), excess, (a, b) -> (a.over() >= b.over()) ? a : b);
                    }
                    if (worst == null || excess.over() > worst.over()) {
                        worst = excess;
                        worstKey = entry.getKey();
                    }
                }
            }
            findings.add(new Finding(limiter, byKey.size(), count, over, worstKey, worst));
        });
        return findings;
    }

    /**
     * What the audit found for one limiter.
     *
     * @param limiter the limiter's name
     * @param keys keys with at least one admission
     * @param admitted admissions over all keys
     * @param over the keys whose admissions went over a limit, each with its largest excess
     * @param worstKey the key with the largest excess (a key that held when none went over), or null
     *     when nothing was admitted
     * @param worst that key's largest excess, or null when nothing was admitted
     */
    record Finding(String limiter, int keys, long admitted, Map<String, LimitCheck.Excess> over, String worstKey,
            LimitCheck.Excess worst) {

        /** Keys that went over a limit. */
        int keysOver() {
            return this.over.size();
        }

        /** Admissions beyond what was allowed, summed over the keys' worst spans. */
        long excess() {
            return this.over.values().stream().mapToLong(LimitCheck.Excess::over).sum();
        }

        @Override
        public String toString() {
            return this.limiter + ": over=" + keysOver() + " keys (excess " + excess() + ") of " + this.keys + " keys, "
                    + this.admitted + " admitted; worst " + this.worstKey + " " + this.worst
                    + (this.over.isEmpty() ? "" : "; over: " + this.over.entrySet()
                        .stream()
                        .limit(5)
                        .map((entry) -> entry.getKey() + " +" + entry.getValue().over())
                        .collect(Collectors.joining(", ")) + (this.over.size() > 5 ? ", ..." : ""));
        }

    }

}
